//! A trust probe written as a new user would: the catalogues of Julia's automatic differentiation
//! packages ported to Rust, and the losses and layers PyTorch users check with `gradcheck`.
//!
//! - ForwardDiff.jl's test functions (the `DiffTests` package): `num2num_*`, `num2arr_1` and its
//!   in-place twin, `vec2num_*`, the four Rosenbrocks, Ackley, `self_weighted_logit`, `mat2num_*`, the
//!   row softmax, `neural_step`, the in-place `chebyquad!`, `brown_almost_linear!`, `trigonometric!`,
//!   `mutation_test_*!` (output parameters whose incoming values are read) and their out-of-place twins,
//!   the binary broadcast and matrix-product catalogues.
//! - Zygote.jl's `test/gradcheck.jl`: reductions (`sum`, `prod`, `cumsum`, `cumprod`, `logsumexp`,
//!   `maximum`, `norm` in several `p`), `softmax`/`logsoftmax`, `kron`, `det`, `logdet` through a
//!   Cholesky factor, `inv`, `\` by elimination, `circshift`, `reverse`, `sort` by swaps, `foldl`,
//!   `accumulate`, the `pow` while loop, recursion, `Dense` and `conv` layers, pooling.
//! - ChainRules.jl's scalar rule tests (`sec`..`acoth`, `sinpi`, `exp10`, `log(b, x)`, `evalpoly`,
//!   `mod`, `rem`, `muladd`, `hypot`, `deg2rad`, `abs2`, `clamp`).
//! - PyTorch-`gradcheck`-style losses and layers: Huber, smooth L1, log-cosh, focal loss, KL
//!   divergence, cosine similarity, layer norm, batch norm over a batch, attention with a
//!   max-subtracted softmax, GRU and LSTM cell steps (functions and methods of `Differentiable`
//!   structs), activations with branches.
//!
//! Shapes chosen to stress the reverse sweep: values carried through loops, early `return` and `break`,
//! branches inside loops, arrays overwritten and read again, `while` loops, calls between differentiable
//! functions with arrays and data arguments, matrices (`&[Vec<f64>]`, `[[f64; N]; M]`), output
//! parameters, `f_jacobian`, `order = 2` and `order = 3`.
//!
//! Every derivative is checked against oracles that share no code with the macro or `autodiff-core`:
//! central differences written in this file and derivatives worked out by hand where they are short, at
//! many points drawn by a small deterministic generator. `f_jvp` is checked against `f_grad` along a
//! random tangent, `f_grad_into` against `f_grad` with its buffers filled with NaN first, `f_hessian`
//! against central differences of `f_grad`, and `f_derivatives` of `order = 3` against central
//! differences of its own lower entries.

// The forms users (and the ported Julia and Python) write are what these programs test: indexed loops,
// explicit returns, `let` then return, `a = a * 3.0`, a manual clamp, swaps through a temporary,
// element-by-element copies, a counter beside a `for`, `(n + 1) / 2`, a `&Vec<f64>` parameter (API.md lists
// it); the probe's function-pointer types spell out the generated signatures.
#![allow(
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::let_and_return,
    clippy::assign_op_pattern,
    clippy::manual_clamp,
    clippy::manual_memcpy,
    clippy::type_complexity,
    clippy::excessive_precision,
    clippy::manual_swap,
    clippy::manual_is_multiple_of,
    clippy::approx_constant,
    clippy::explicit_counter_loop,
    clippy::manual_div_ceil,
    clippy::ptr_arg
)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::*;

// ---------------------------------------------------------------------------------------------------
// The oracle: a deterministic generator, central differences, tolerant comparisons.
// ---------------------------------------------------------------------------------------------------

/// How many points each function is checked at.
const POINTS: usize = 30;

/// A probe of `f(x: &[f64], y: &[f64])` seen as one flat vector `(x, y)` split at `n`.
macro_rules! two_slices {
    ($name:expr, $n:expr, $f:path, $g:path, $j:path, $gi:path) => {{
        let n = $n;
        Probe::new($name, move |x| $f(&x[..n], &x[n..]))
            .grad(move |x| {
                let (v, (a, b)) = $g(&x[..n], &x[n..]);
                (v, [a, b].concat())
            })
            .jvp(move |x, t| $j(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec())))
            .grad_into(move |x| {
                let mut a = vec![GARBAGE; n];
                let mut b = vec![GARBAGE; x.len() - n];
                let v = $gi(&x[..n], &x[n..], (&mut a, &mut b));
                (v, [a, b].concat())
            })
    }};
}

/// A probe of one slice at `order = 2`, by its module and name: `slice` plus `f_hessian`.
macro_rules! slice2 {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident) => {
        slice(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi).hessian($m::$h)
    };
}

/// A flat vector as the rows of a matrix with `c` columns.
fn rows(x: &[f64], c: usize) -> Vec<Vec<f64>> {
    x.chunks(c).map(|r| r.to_vec()).collect()
}

/// A flat vector as an `N x N` nested array.
fn square<const N: usize>(x: &[f64]) -> [[f64; N]; N] {
    let mut m = [[0.0; N]; N];
    for i in 0..N {
        for j in 0..N {
            m[i][j] = x[i * N + j];
        }
    }
    m
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---------------------------------------------------------------------------------------------------
// ForwardDiff.jl's DiffTests: number to number, number to array, vector to number.
// ---------------------------------------------------------------------------------------------------

pub mod difftests {
    use autodiff::differentiable;

    /// `num2num_1(x) = sin(x)^2 / cos(x)^2`.
    #[differentiable(order = 3)]
    pub fn num2num_1(x: f64) -> f64 {
        x.sin().powi(2) / x.cos().powi(2)
    }

    /// `num2num_2(x) = 2*x + sqrt(x*x*x)`.
    #[differentiable(order = 3)]
    pub fn num2num_2(x: f64) -> f64 {
        2.0 * x + (x * x * x).sqrt()
    }

    /// `num2num_3(x) = 10.31^(x + x) - x`.
    #[differentiable(order = 3)]
    pub fn num2num_3(x: f64) -> f64 {
        10.31_f64.powf(x + x) - x
    }

    /// `num2num_4(x) = 1`.
    #[differentiable(order = 2)]
    pub fn num2num_4(_x: f64) -> f64 {
        1.0
    }

    /// `num2num_5(x) = 1. / (1. + exp(-x))`.
    #[differentiable(order = 3)]
    pub fn num2num_5(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// `num2arr_1`: the scalar functions above in an array (a 2x2x2 reshape, flattened).
    #[differentiable]
    pub fn num2arr_1(x: f64) -> [f64; 8] {
        let (a, b, c) = (num2num_1(x), num2num_2(x), num2num_3(x));
        [a, b, c, a - b, b, c, num2num_2(x), num2num_3(x)]
    }

    /// `num2arr_1!(y, x)`: `fill!(y, 0)` then `y[i] = (sin(x) + y[i-1])^2`, each entry read back.
    #[differentiable]
    pub fn num2arr_1_inplace(y: &mut [f64], x: f64) {
        for i in 0..y.len() {
            y[i] = 0.0;
        }
        for i in 1..y.len() {
            y[i] = (x.sin() + y[i - 1]).powi(2);
        }
    }

    /// `vec2num_1(x) = (exp(x[1]) + log(x[3]) * x[4]) / x[5]`.
    #[differentiable(order = 2)]
    pub fn vec2num_1(x: &[f64]) -> f64 {
        (x[0].exp() + x[2].ln() * x[3]) / x[4]
    }

    /// `vec2num_2(x) = x[1]*x[2] + sin(x[1])`.
    #[differentiable(order = 2)]
    pub fn vec2num_2(x: &[f64]) -> f64 {
        x[0] * x[1] + x[0].sin()
    }

    /// `vec2num_3(x) = norm(x' .* x)`: the Frobenius norm of the outer product.
    #[differentiable(order = 2)]
    pub fn vec2num_3(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in 0..x.len() {
                let p = x[i] * x[j];
                s += p * p;
            }
        }
        s.sqrt()
    }

    /// `vec2num_4(x) = ((sum(x) + prod(x)); 1)`: a value computed and thrown away.
    #[differentiable(order = 2)]
    pub fn vec2num_4(x: &[f64]) -> f64 {
        let _unused = x.iter().sum::<f64>() + x.iter().product::<f64>();
        1.0
    }

    /// `vec2num_5(x) = sum((-x).^3)`.
    #[differentiable(order = 2)]
    pub fn vec2num_5(x: &[f64]) -> f64 {
        x.iter().map(|v| (-v).powi(3)).sum()
    }

    /// `vec2num_6(x) = sum([ifelse(i > 0, i, 0) for i in x])`.
    #[differentiable(order = 2)]
    pub fn vec2num_6(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += if v > 0.0 { v } else { 0.0 };
        }
        s
    }

    /// `vec2num_7(x) = sum(map(y -> x[1] * y, x))`: a closure capturing an element.
    #[differentiable(order = 2)]
    pub fn vec2num_7(x: &[f64]) -> f64 {
        let first = x[0];
        x.iter().map(|y| first * y).sum()
    }

    /// `rosenbrock_1`: the indexed loop.
    #[differentiable(order = 2)]
    pub fn rosenbrock_1(x: &[f64]) -> f64 {
        let a = 1.0;
        let b = 100.0 * a;
        let mut result = 0.0;
        for i in 0..x.len() - 1 {
            result += (a - x[i]).powi(2) + b * (x[i + 1] - x[i] * x[i]).powi(2);
        }
        result
    }

    /// `rosenbrock_2`: `a = x[1]` is active, mapped over two shifted sub-slices.
    #[differentiable(order = 2)]
    pub fn rosenbrock_2(x: &[f64]) -> f64 {
        let a = x[0];
        let b = 100.0 * a;
        let n = x.len();
        x[1..]
            .iter()
            .zip(&x[..n - 1])
            .map(|(i, j)| (a - j) * (a - j) + b * (i - j * j) * (i - j * j))
            .sum()
    }

    /// `rosenbrock_3`: the classic constants, by `zip` of the two windows.
    #[differentiable(order = 2)]
    pub fn rosenbrock_3(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, j) in x[1..].iter().zip(x.iter()) {
            s += (1.0 - j).powi(2) + 100.0 * (i - j * j).powi(2);
        }
        s
    }

    /// `rosenbrock_4`: temporaries `t1`, `t2` as local `Vec`s, then `abs.(t2).^2`.
    #[differentiable(order = 2)]
    pub fn rosenbrock_4(x: &[f64]) -> f64 {
        let n = x.len() - 1;
        let mut t1 = vec![0.0; n];
        let mut t2 = vec![0.0; n];
        for i in 0..n {
            t1[i] = (1.0 + x[i]).powi(2);
            t2[i] = x[i + 1] + x[i] * x[i];
        }
        let mut s = 0.0;
        for i in 0..n {
            s += t1[i] + 100.0 * t2[i].abs().powi(2);
        }
        s
    }

    /// `ackley`: sums carried through a `for v in x` loop.
    #[differentiable(order = 2)]
    pub fn ackley(x: &[f64]) -> f64 {
        let (a, b, c) = (20.0, -0.2, 2.0 * std::f64::consts::PI);
        let len_recip = 1.0 / x.len() as f64;
        let mut sum_sqrs = 0.0;
        let mut sum_cos = sum_sqrs;
        for &i in x {
            sum_cos += (c * i).cos();
            sum_sqrs += i * i;
        }
        -a * (b * (len_recip * sum_sqrs).sqrt()).exp() - (len_recip * sum_cos).exp()
            + a
            + 1.0_f64.exp()
    }

    /// `self_weighted_logit(x) = inv(1 + exp(-dot(x, x)))`.
    #[differentiable(order = 2)]
    pub fn self_weighted_logit(x: &[f64]) -> f64 {
        let d: f64 = x.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
        (1.0 + (-d).exp()).recip()
    }

    /// `first`.
    #[differentiable(order = 2)]
    pub fn first(x: &[f64]) -> f64 {
        x[0]
    }

    /// `det` of a 3x3 matrix by cofactors.
    #[differentiable(order = 2)]
    pub fn det3(m: [[f64; 3]; 3]) -> f64 {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    /// `mat2num_1(x) = det(first(x) * inv(x * x) + x)` for a 2x2 matrix: a local product, its inverse
    /// by the adjugate, then the determinant.
    #[differentiable(order = 2)]
    pub fn mat2num_1(x: [[f64; 2]; 2]) -> f64 {
        let mut p = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    p[i][j] += x[i][k] * x[k][j];
                }
            }
        }
        let d = p[0][0] * p[1][1] - p[0][1] * p[1][0];
        let inv = [[p[1][1] / d, -p[0][1] / d], [-p[1][0] / d, p[0][0] / d]];
        let f = x[0][0];
        let mut m = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                m[i][j] = f * inv[i][j] + x[i][j];
            }
        }
        m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    /// `mat2num_2`: `a` a column and `b` a row of the same entries, `tr(log.((1 .+ a*b) .+ a .- b))`
    /// (column-major as Julia flattens).
    #[differentiable(order = 2)]
    pub fn mat2num_2(x: &[Vec<f64>]) -> f64 {
        let n = x.len();
        let mut a = vec![0.0; n * n];
        for j in 0..n {
            for i in 0..n {
                a[j * n + i] = x[i][j];
            }
        }
        let mut t = 0.0;
        for k in 0..n * n {
            t += ((1.0 + a[k] * a[k]) + a[k] - a[k]).ln();
        }
        t
    }

    /// `mat2num_3`: `sum(map(n -> sqrt(abs(n) + n^2) * 0.5, A))`.
    #[differentiable(order = 2)]
    pub fn mat2num_3(x: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in x.iter() {
            for &v in row.iter() {
                s += (v.abs() + v * v).sqrt() * 0.5;
            }
        }
        s
    }

    /// `mat2num_4(x) = mean(sum(sin.(x) * x, dims=2))`.
    #[differentiable(order = 2)]
    pub fn mat2num_4(x: &[Vec<f64>]) -> f64 {
        let n = x.len();
        let mut total = 0.0;
        for i in 0..n {
            let mut row = 0.0;
            for j in 0..n {
                for k in 0..n {
                    row += x[i][k].sin() * x[k][j];
                }
            }
            total += row;
        }
        total / n as f64
    }

    /// DiffTests' `softmax(x) = sum(exp.(x) ./ sum(exp.(x), dims=2))` (each row sums to one, so the
    /// value is the number of rows and the gradient zero), written with the maximum subtracted.
    #[differentiable(order = 2)]
    pub fn softmax_rows(x: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in x {
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let z: f64 = row.iter().map(|v| (v - m).exp()).sum();
            for &v in row.iter() {
                s += (v - m).exp() / z;
            }
        }
        s
    }

    /// A row softmax that is not constant: weighted by column, so the gradient is not zero.
    #[differentiable(order = 2)]
    pub fn softmax_rows_weighted(x: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in x {
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let z: f64 = row.iter().map(|v| (v - m).exp()).sum();
            for (j, &v) in row.iter().enumerate() {
                s += (j as f64 + 1.0) * (v - m).exp() / z;
            }
        }
        s
    }

    /// `relu(x) = log.(1 .+ exp.(x))` (a softplus), called per element.
    #[differentiable]
    pub fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }

    /// `neural_step(x1, w1, w2) = sigmoid(dot(w2[1:n], relu(w1 * x1[1:n])))` with `w1` a matrix.
    #[differentiable(order = 2)]
    pub fn neural_step(x1: &[f64], w1: &[Vec<f64>], w2: &[f64]) -> f64 {
        let n = w1[0].len();
        let mut d = 0.0;
        for i in 0..w1.len() {
            let mut z = 0.0;
            for j in 0..n {
                z += w1[i][j] * x1[j];
            }
            d += w2[i] * softplus(z);
        }
        1.0 / (1.0 + (-d).exp())
    }

    /// `chebyquad!(y, x)`: `y[i] +=` reads the incoming `y`, then scaled and shifted on even rows.
    #[differentiable]
    pub fn chebyquad_inplace(y: &mut [f64], x: &[f64]) {
        let tk = 1.0 / x.len() as f64;
        for j in 0..x.len() {
            let mut temp1 = 1.0;
            let mut temp2 = 2.0 * x[j] - 1.0;
            let temp = 2.0 * temp2;
            for i in 0..y.len() {
                y[i] += temp2;
                let ti = temp * temp2 - temp1;
                temp1 = temp2;
                temp2 = ti;
            }
        }
        let mut iev = -1.0;
        for k in 0..y.len() {
            y[k] *= tk;
            if iev > 0.0 {
                let kk = (k + 1) as f64;
                y[k] += 1.0 / (kk * kk - 1.0);
            }
            iev = -iev;
        }
    }

    /// `chebyquad(x)`: the in-place one into a zero `Vec`, returned.
    #[differentiable]
    pub fn chebyquad(x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        chebyquad_inplace(&mut y, x);
        y
    }

    /// `brown_almost_linear!(y, x)`: a double loop of `+=`, the last entry a product.
    #[differentiable]
    pub fn brown_almost_linear_inplace(y: &mut [f64], x: &[f64]) {
        let c = x.iter().sum::<f64>() - (x.len() + 1) as f64;
        for i in 0..x.len() - 1 {
            for j in 0..y.len() - 1 {
                y[j] += x[i] + c;
            }
        }
        let n = y.len();
        y[n - 1] = x.iter().product::<f64>() - 1.0;
    }

    /// `brown_almost_linear(x)`.
    #[differentiable]
    pub fn brown_almost_linear(x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        brown_almost_linear_inplace(&mut y, x);
        y
    }

    /// `trigonometric!(y, x)`: `y` overwritten in full for each `x[i]`, summed, then updated from itself.
    #[differentiable]
    pub fn trigonometric_inplace(y: &mut [f64], x: &[f64]) {
        for &i in x {
            for j in 0..y.len() {
                y[j] = i.cos();
            }
        }
        let c: f64 = y.iter().sum();
        let n = x.len() as f64;
        for &i in x {
            for j in 0..y.len() {
                y[j] = i.sin() * y[j] + n - c;
            }
        }
    }

    /// `trigonometric(x)`: into a `Vec` of ones.
    #[differentiable]
    pub fn trigonometric(x: &[f64]) -> Vec<f64> {
        let mut y = vec![1.0; x.len()];
        trigonometric_inplace(&mut y, x);
        y
    }

    /// `mutation_test_1!(y, x)`: `y[1]` written then read, `y[2]` read before written, `y[3] = sum(y)`.
    #[differentiable]
    pub fn mutation_test_1_inplace(y: &mut [f64], x: &[f64]) {
        y[0] = x[0];
        y[0] = y[0] * x[1];
        y[1] = y[1] * x[2];
        y[2] = y.iter().sum();
    }

    /// `mutation_test_2!(y, x)`: only compound assignments, every incoming entry read.
    #[differentiable]
    pub fn mutation_test_2_inplace(y: &mut [f64], x: &[f64]) {
        y[0] *= x[0];
        y[1] *= x[0];
        y[0] *= x[1];
        y[1] *= x[1];
    }

    /// `mutation_test_1(x)`: into zeros.
    #[differentiable]
    pub fn mutation_test_1(x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        mutation_test_1_inplace(&mut y, x);
        y
    }

    /// `mutation_test_2(x)`: into ones.
    #[differentiable]
    pub fn mutation_test_2(x: &[f64]) -> Vec<f64> {
        let mut y = vec![1.0; x.len()];
        mutation_test_2_inplace(&mut y, x);
        y
    }

    /// `arr2arr_2(x) = x[1, :] .+ x[1, :] .+ first(x)` of a matrix.
    #[differentiable]
    pub fn arr2arr_2(x: &[Vec<f64>]) -> Vec<f64> {
        let mut out = vec![0.0; x[0].len()];
        for j in 0..x[0].len() {
            out[j] = x[0][j] + x[0][j] + x[0][0];
        }
        out
    }

    /// `BINARY_BROADCAST_OPS` on two matrices, each result summed with weights, chosen by `op`.
    #[differentiable(order = 2, wrt(a, b))]
    pub fn broadcast_op(a: &[Vec<f64>], b: &[Vec<f64>], op: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            for j in 0..a[i].len() {
                let (p, q) = (a[i][j], b[i][j]);
                let r = match op {
                    0 => p + q,
                    1 => p - q,
                    2 => p * q,
                    3 => p / q,
                    4 => q / p,
                    _ => p.powf(q),
                };
                s += (1.0 + (i + 2 * j) as f64 * 0.25) * r;
            }
        }
        s
    }

    /// `BINARY_MATRIX_TO_MATRIX_FUNCS`' products: `a*b`, `a*b'`, `a'*b`, `a'*b'` by `op`, the entries
    /// summed with weights.
    #[differentiable(order = 2, wrt(a, b))]
    pub fn matmul_op(a: [[f64; 3]; 3], b: [[f64; 3]; 3], op: usize) -> f64 {
        let mut c = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..3 {
                    c[i][j] += match op {
                        0 => a[i][k] * b[k][j],
                        1 => a[i][k] * b[j][k],
                        2 => a[k][i] * b[k][j],
                        _ => a[k][i] * b[j][k],
                    };
                }
            }
        }
        let mut s = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                s += (i as f64 - j as f64 + 0.5) * c[i][j];
            }
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Zygote.jl test/gradcheck.jl: reductions, linear algebra, array shuffles, loops and layers.
// ---------------------------------------------------------------------------------------------------

pub mod zygote {
    use autodiff::differentiable;

    /// `sum(abs2, x)`.
    #[differentiable(order = 2)]
    pub fn sum_abs2(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum()
    }

    /// `prod(x)` by a loop.
    #[differentiable(order = 2)]
    pub fn prod(x: &[f64]) -> f64 {
        let mut p = 1.0;
        for i in 0..x.len() {
            p *= x[i];
        }
        p
    }

    /// `cumsum(x)`.
    #[differentiable]
    pub fn cumsum(x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        let mut acc = 0.0;
        for i in 0..x.len() {
            acc += x[i];
            out[i] = acc;
        }
        out
    }

    /// `cumprod(x)`: each entry read back from the previous one.
    #[differentiable]
    pub fn cumprod(x: &[f64]) -> Vec<f64> {
        let mut out = x.to_vec();
        for i in 1..x.len() {
            out[i] = out[i - 1] * x[i];
        }
        out
    }

    /// `sum(cumsum(x) .^ 2)`: the prefix sums computed in place in a copy, overwritten then read.
    #[differentiable(order = 2)]
    pub fn cumsum_sq(x: &[f64]) -> f64 {
        let mut c = vec![0.0; x.len()];
        for i in 0..x.len() {
            c[i] = x[i];
        }
        for i in 1..c.len() {
            c[i] += c[i - 1];
        }
        let mut s = 0.0;
        for i in 0..c.len() {
            s += c[i] * c[i];
        }
        s
    }

    /// `logsumexp(x)`, the maximum subtracted.
    #[differentiable(order = 2)]
    pub fn logsumexp(x: &[f64]) -> f64 {
        let mut m = x[0];
        for &v in &x[1..] {
            if v > m {
                m = v;
            }
        }
        let mut s = 0.0;
        for &v in x {
            s += (v - m).exp();
        }
        m + s.ln()
    }

    /// `softmax(x)`.
    #[differentiable]
    pub fn softmax(x: &[f64]) -> Vec<f64> {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut e = vec![0.0; x.len()];
        let mut z = 0.0;
        for i in 0..x.len() {
            e[i] = (x[i] - m).exp();
            z += e[i];
        }
        for i in 0..x.len() {
            e[i] /= z;
        }
        e
    }

    /// `logsoftmax(x)`, through `logsumexp`.
    #[differentiable]
    pub fn logsoftmax(x: &[f64]) -> Vec<f64> {
        let l = logsumexp(x);
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = x[i] - l;
        }
        out
    }

    /// `sum(w .* kron(a, b))` of two 2x2 matrices.
    #[differentiable(order = 2)]
    pub fn kron(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    for l in 0..2 {
                        let w = 1.0 + (2 * i + k) as f64 - 0.5 * (2 * j + l) as f64;
                        s += w * a[i][j] * b[k][l];
                    }
                }
            }
        }
        s
    }

    /// `dot(x, y)`.
    #[differentiable(order = 2)]
    pub fn dot(x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
    }

    /// `norm(x)`.
    #[differentiable(order = 2)]
    pub fn norm2(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    /// `norm(x, 1)`.
    #[differentiable(order = 2)]
    pub fn norm1(x: &[f64]) -> f64 {
        x.iter().map(|v| v.abs()).sum()
    }

    /// `norm(x, 3)`.
    #[differentiable(order = 2)]
    pub fn norm3(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += v.abs().powf(3.0);
        }
        s.powf(1.0 / 3.0)
    }

    /// `norm(x, Inf)`: a fold of `max` over absolute values.
    #[differentiable(order = 2)]
    pub fn norm_inf(x: &[f64]) -> f64 {
        x.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
    }

    /// `maximum(x)` squared, by the index of the maximum.
    #[differentiable(order = 2)]
    pub fn maximum_sq(x: &[f64]) -> f64 {
        let mut k = 0;
        for i in 1..x.len() {
            if x[i] > x[k] {
                k = i;
            }
        }
        x[k] * x[k]
    }

    /// `minimum(x)` through `f64::min`, times the sum.
    #[differentiable(order = 2)]
    pub fn minimum_times_sum(x: &[f64]) -> f64 {
        let mut m = f64::INFINITY;
        let mut s = 0.0;
        for &v in x {
            m = m.min(v);
            s += v;
        }
        m * s
    }

    /// `mean(x)`.
    #[differentiable(order = 2)]
    pub fn mean(x: &[f64]) -> f64 {
        x.iter().sum::<f64>() / x.len() as f64
    }

    /// `var(x)` (corrected).
    #[differentiable(order = 2)]
    pub fn var(x: &[f64]) -> f64 {
        let m = mean(x);
        let mut s = 0.0;
        for &v in x {
            s += (v - m) * (v - m);
        }
        s / (x.len() - 1) as f64
    }

    /// `std(x)` through `var`.
    #[differentiable(order = 2)]
    pub fn std(x: &[f64]) -> f64 {
        var(x).sqrt()
    }

    /// `tr(A * A)` of a matrix.
    #[differentiable(order = 2)]
    pub fn tr_square(a: &[Vec<f64>]) -> f64 {
        let mut t = 0.0;
        for i in 0..a.len() {
            for k in 0..a.len() {
                t += a[i][k] * a[k][i];
            }
        }
        t
    }

    /// `logdet(A)` of a symmetric positive definite `A`, through a Cholesky factor made in a local
    /// matrix (only the lower triangle of `A` is read).
    #[differentiable(order = 2)]
    pub fn logdet_chol(a: &[Vec<f64>]) -> f64 {
        let n = a.len();
        let mut l = vec![vec![0.0; n]; n];
        for j in 0..n {
            let mut d = a[j][j];
            for k in 0..j {
                d -= l[j][k] * l[j][k];
            }
            l[j][j] = d.sqrt();
            for i in j + 1..n {
                let mut s = a[i][j];
                for k in 0..j {
                    s -= l[i][k] * l[j][k];
                }
                l[i][j] = s / l[j][j];
            }
        }
        let mut ld = 0.0;
        for i in 0..n {
            ld += 2.0 * l[i][i].ln();
        }
        ld
    }

    /// `inv(A)` of a 2x2 matrix, flattened.
    #[differentiable]
    pub fn inv2(a: [[f64; 2]; 2]) -> [f64; 4] {
        let d = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        [a[1][1] / d, -a[0][1] / d, -a[1][0] / d, a[0][0] / d]
    }

    /// `A \ b` by Gaussian elimination with partial pivoting on local copies: rows swapped entry by
    /// entry, every entry overwritten and read again, then back substitution (`(0..n).rev()`).
    #[differentiable]
    pub fn solve(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let mut m = vec![vec![0.0; n]; n];
        let mut r = vec![0.0; n];
        for i in 0..n {
            for j in 0..n {
                m[i][j] = a[i][j];
            }
            r[i] = b[i];
        }
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if m[i][k].abs() > m[p][k].abs() {
                    p = i;
                }
            }
            if p != k {
                for j in 0..n {
                    let t = m[k][j];
                    m[k][j] = m[p][j];
                    m[p][j] = t;
                }
                let t = r[k];
                r[k] = r[p];
                r[p] = t;
            }
            for i in k + 1..n {
                let f = m[i][k] / m[k][k];
                for j in k..n {
                    m[i][j] -= f * m[k][j];
                }
                r[i] -= f * r[k];
            }
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let mut s = r[i];
            for j in i + 1..n {
                s -= m[i][j] * x[j];
            }
            x[i] = s / m[i][i];
        }
        x
    }

    /// `sum(abs2, A \ b)`: a call returning a `Vec`, read by the caller.
    #[differentiable(order = 2)]
    pub fn solve_sq(a: &[Vec<f64>], b: &[f64]) -> f64 {
        let x = solve(a, b);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
        }
        s
    }

    /// `circshift(x, k)`.
    #[differentiable]
    pub fn circshift(x: &[f64], k: usize) -> Vec<f64> {
        let n = x.len();
        let mut out = vec![0.0; n];
        for i in 0..n {
            out[(i + k) % n] = x[i];
        }
        out
    }

    /// `sum(w .* reverse(x) .^ 2)`, reversed by `.rev()`.
    #[differentiable(order = 2)]
    pub fn reverse_weighted(x: &[f64]) -> f64 {
        let mut r = vec![0.0; x.len()];
        let mut j = 0;
        for i in (0..x.len()).rev() {
            r[j] = x[i];
            j += 1;
        }
        let mut s = 0.0;
        for i in 0..r.len() {
            s += (i as f64 + 1.0) * r[i] * r[i];
        }
        s
    }

    /// `sum(w .* sort(x))` by a bubble sort with swaps on a local copy (a `while` over passes).
    #[differentiable(order = 2)]
    pub fn sort_weighted(x: &[f64]) -> f64 {
        let mut s = x.to_vec();
        let n = s.len();
        let mut swapped = true;
        while swapped {
            swapped = false;
            for i in 1..n {
                if s[i - 1] > s[i] {
                    let t = s[i - 1];
                    s[i - 1] = s[i];
                    s[i] = t;
                    swapped = true;
                }
            }
        }
        let mut out = 0.0;
        for i in 0..n {
            out += (i as f64 + 1.0) * s[i] * s[i].sin();
        }
        out
    }

    /// `foldl((a, b) -> a * b + b, x; init = 1)`.
    #[differentiable(order = 2)]
    pub fn foldl(x: &[f64]) -> f64 {
        x.iter().fold(1.0, |a, &b| a * b + b)
    }

    /// `sum(accumulate(max, x) .* w)`: the running maximum.
    #[differentiable(order = 2)]
    pub fn accumulate_max(x: &[f64]) -> f64 {
        let mut m = x[0];
        let mut s = m;
        for i in 1..x.len() {
            m = m.max(x[i]);
            s += (i as f64 + 1.0) * m;
        }
        s
    }

    /// Zygote's `pow` with a `while` loop: `r = 1; while n > 0; n -= 1; r *= x; end`.
    #[differentiable(order = 3)]
    pub fn pow_while(x: f64, n: usize) -> f64 {
        let mut r = 1.0;
        let mut n = n;
        while n > 0 {
            n -= 1;
            r *= x;
        }
        r
    }

    /// Zygote's recursive `pow`: `n == 0 ? 1 : x * pow(x, n - 1)`.
    #[differentiable(order = 2)]
    pub fn pow_rec(x: f64, n: usize) -> f64 {
        if n == 0 {
            return 1.0;
        }
        x * pow_rec(x, n - 1)
    }

    /// `σ.(W*x .+ b)`, a `Dense` layer.
    #[differentiable]
    pub fn dense(w: &[Vec<f64>], x: &[f64], b: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; w.len()];
        for i in 0..w.len() {
            let mut z = b[i];
            for j in 0..x.len() {
                z += w[i][j] * x[j];
            }
            out[i] = 1.0 / (1.0 + (-z).exp());
        }
        out
    }

    /// `sum(Dense(W, b)(x) .^ 2)`: the layer called, its `Vec` read.
    #[differentiable(order = 2)]
    pub fn dense_loss(w: &[Vec<f64>], x: &[f64], b: &[f64]) -> f64 {
        let y = dense(w, x, b);
        y.iter().map(|v| v * v).sum()
    }

    /// A valid 1-D convolution (correlation, as `conv` computes).
    #[differentiable]
    pub fn conv1d(x: &[f64], w: &[f64]) -> Vec<f64> {
        let n = x.len() - w.len() + 1;
        let mut out = vec![0.0; n];
        for i in 0..n {
            for k in 0..w.len() {
                out[i] += x[i + k] * w[k];
            }
        }
        out
    }

    /// `maxpool` with window 2 and stride 2: a branch inside the loop picks the larger.
    #[differentiable]
    pub fn maxpool(x: &[f64]) -> Vec<f64> {
        let n = x.len() / 2;
        let mut out = vec![0.0; n];
        for i in 0..n {
            let (a, b) = (x[2 * i], x[2 * i + 1]);
            out[i] = if a > b { a } else { b };
        }
        out
    }

    /// `meanpool` with window 3 and stride 1 over a sub-slice each step.
    #[differentiable]
    pub fn meanpool(x: &[f64]) -> Vec<f64> {
        let n = x.len() - 2;
        let mut out = vec![0.0; n];
        for i in 0..n {
            let w = &x[i..i + 3];
            out[i] = w.iter().sum::<f64>() / 3.0;
        }
        out
    }

    /// `sum(clamp.(x, lo, hi) .^ 2)` with active bounds.
    #[differentiable(order = 2)]
    pub fn clamp_sq(x: &[f64], lo: f64, hi: f64) -> f64 {
        let mut s = 0.0;
        for &v in x {
            let c = v.clamp(lo, hi);
            s += c * c;
        }
        s
    }

    /// `hypot(x, y, z)`.
    #[differentiable(order = 3)]
    pub fn hypot3(x: f64, y: f64, z: f64) -> f64 {
        x.hypot(y).hypot(z)
    }

    /// `det` of a 3x3 matrix held flat (for the tests' formulas).
    pub fn det3_flat(m: &[f64]) -> f64 {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// `getindex`: a few entries read, some twice, others never.
    #[differentiable(order = 2)]
    pub fn getindex(x: &[f64]) -> f64 {
        x[0] * x[0] + x[2] * x[1] + x[2]
    }

    /// `vcat(x, reverse(y), x)` built in a local `Vec`, then weighted.
    #[differentiable(order = 2)]
    pub fn vcat_weighted(x: &[f64], y: &[f64]) -> f64 {
        let (n, m) = (x.len(), y.len());
        let mut c = vec![0.0; 2 * n + m];
        for i in 0..n {
            c[i] = x[i];
            c[n + m + i] = x[i];
        }
        for j in 0..m {
            c[n + j] = y[m - 1 - j];
        }
        let mut s = 0.0;
        for i in 0..c.len() {
            s += (0.3 * i as f64).cos() * c[i] * c[i] * c[i];
        }
        s
    }

    /// `sum(sin.(fill(x, n) .* (1:n)))`: an active scalar filled into a `Vec`.
    #[differentiable(order = 3)]
    pub fn fill_sin(x: f64, n: usize) -> f64 {
        let f = vec![x; n];
        let mut s = 0.0;
        for i in 0..n {
            s += (f[i] * (i + 1) as f64).sin();
        }
        s
    }

    /// `xlogy(x, y)` summed: zero where `x == 0`, by a branch.
    #[differentiable(order = 2)]
    pub fn xlogy(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            if x[i] == 0.0 {
                continue;
            }
            s += x[i] * y[i].ln();
        }
        s
    }

    /// `mul!(out, A, x)`: a matrix-vector product into an output parameter.
    #[differentiable]
    pub fn mul_into(out: &mut [f64], a: &[Vec<f64>], x: &[f64]) {
        for i in 0..a.len() {
            out[i] = 0.0;
            for j in 0..x.len() {
                out[i] += a[i][j] * x[j];
            }
        }
    }

    /// `prod(diag(A)) + sum(x * y')`: the diagonal and an outer product of a matrix and two vectors.
    #[differentiable(order = 2)]
    pub fn diag_outer(a: &[Vec<f64>], x: &[f64], y: &[f64]) -> f64 {
        let mut p = 1.0;
        for i in 0..a.len() {
            p *= a[i][i];
        }
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in 0..y.len() {
                s += a[i][j] * x[i] * y[j];
            }
        }
        p + s
    }
}

// ---------------------------------------------------------------------------------------------------
// ChainRules.jl's scalar rules (test/rulesets/Base/fastmath_able.jl, base.jl).
// ---------------------------------------------------------------------------------------------------

pub mod rules {
    use autodiff::differentiable;

    /// `sec(x) + csc(x) + cot(x)`.
    #[differentiable(order = 3)]
    pub fn sec_csc_cot(x: f64) -> f64 {
        1.0 / x.cos() + 1.0 / x.sin() + 1.0 / x.tan()
    }

    /// `asec(x) + acsc(x) + acot(x)` for `|x| > 1`.
    #[differentiable(order = 3)]
    pub fn asec_acsc_acot(x: f64) -> f64 {
        (1.0 / x).acos() + (1.0 / x).asin() + (1.0 / x).atan()
    }

    /// `sech(x) + csch(x) + coth(x)`.
    #[differentiable(order = 3)]
    pub fn sech_csch_coth(x: f64) -> f64 {
        x.cosh().recip() + x.sinh().recip() + x.tanh().recip()
    }

    /// `acoth(x) + acsch(x)` for `x > 1`.
    #[differentiable(order = 3)]
    pub fn acoth_acsch(x: f64) -> f64 {
        (1.0 / x).atanh() + (1.0 / x).asinh()
    }

    /// `asech(x)` for `0 < x < 1`.
    #[differentiable(order = 3)]
    pub fn asech(x: f64) -> f64 {
        (1.0 / x).acosh()
    }

    /// `sinpi(x) + cospi(x)`.
    #[differentiable(order = 3)]
    pub fn sinpi_cospi(x: f64) -> f64 {
        let px = std::f64::consts::PI * x;
        px.sin() + px.cos()
    }

    /// Julia's `sinc(x)`, 1 at 0 by a branch.
    #[differentiable(order = 3)]
    pub fn sinc(x: f64) -> f64 {
        if x == 0.0 {
            return 1.0;
        }
        let px = std::f64::consts::PI * x;
        px.sin() / px
    }

    /// `exp10(x) + log10(x)`.
    #[differentiable(order = 3)]
    pub fn exp10_log10(x: f64) -> f64 {
        10.0_f64.powf(x) + x.log10()
    }

    /// `log(b, x)` with both active: by `ln` and by `log`.
    #[differentiable(order = 2)]
    pub fn log_base(b: f64, x: f64) -> f64 {
        x.ln() / b.ln() + x.log(b)
    }

    /// `evalpoly(x, p)` by Horner, the coefficients active.
    #[differentiable(order = 2)]
    pub fn evalpoly(x: f64, p: &[f64]) -> f64 {
        let mut r = p[p.len() - 1];
        for i in (0..p.len() - 1).rev() {
            r = r * x + p[i];
        }
        r
    }

    /// Julia's `mod(x, y)` (floored) and `rem(x, y)` (truncated).
    #[differentiable(order = 2)]
    pub fn mod_rem(x: f64, y: f64) -> f64 {
        (x - (x / y).floor() * y) + 2.0 * (x % y)
    }

    /// `muladd(x, y, z) + fma(x, y, z) * z`.
    #[differentiable(order = 2)]
    pub fn muladd_fma(x: f64, y: f64, z: f64) -> f64 {
        (x * y + z) + x.mul_add(y, z) * z
    }

    /// `deg2rad(x) * rad2deg(x)`.
    #[differentiable(order = 3)]
    pub fn deg_rad(x: f64) -> f64 {
        x.to_radians() * x.to_degrees()
    }

    /// `abs2(x) + cbrt(x)` for `x != 0`.
    #[differentiable(order = 3)]
    pub fn abs2_cbrt(x: f64) -> f64 {
        x * x + x.cbrt()
    }

    /// `sincos(x)` as a tuple.
    #[differentiable]
    pub fn sincos(x: f64) -> (f64, f64) {
        (x.sin(), x.cos())
    }

    /// `sum(sincos(x) .* (2, 3))`: a tuple from a call, unpacked.
    #[differentiable(order = 3)]
    pub fn sincos_weighted(x: f64) -> f64 {
        let (s, c) = sincos(x);
        2.0 * s + 3.0 * c
    }

    /// `max(x, y) * min(x, y) + max(x, 2y)`.
    #[differentiable(order = 2)]
    pub fn max_min(x: f64, y: f64) -> f64 {
        x.max(y) * x.min(y) + x.max(2.0 * y)
    }

    /// `sign(x) * x^3 + abs(x)`.
    #[differentiable(order = 2)]
    pub fn sign_abs(x: f64) -> f64 {
        x.signum() * x * x * x + x.abs()
    }

    /// `floor`, `ceil`, `round`, `trunc`: zero derivatives, beside `x`.
    #[differentiable(order = 2)]
    pub fn rounding(x: f64) -> f64 {
        x.floor() + x.ceil() * 2.0 + x.round() * 3.0 + x.trunc() + x * x
    }

    /// `x^-3 + x^0 + x^2.5` for `x > 0`.
    #[differentiable(order = 3)]
    pub fn powers(x: f64) -> f64 {
        x.powi(-3) + x.powi(0) + x.powf(2.5)
    }

    /// `tanh(x) + asinh(x) + acosh(1 + x^2) + atanh(x / 2)`.
    #[differentiable(order = 3)]
    pub fn hyperbolic(x: f64) -> f64 {
        x.tanh() + x.asinh() + (1.0 + x * x + 0.5).acosh() + (x / 2.0).atanh()
    }

    /// `exp2(x) + log2(x) + expm1(x) + log1p(x)` for `x > 0`.
    #[differentiable(order = 3)]
    pub fn exp_log_family(x: f64) -> f64 {
        x.exp2() + x.log2() + x.exp_m1() + x.ln_1p()
    }

    /// `atan(y, x)` and `atan(y / x)` side by side.
    #[differentiable(order = 2)]
    pub fn atan_two(y: f64, x: f64) -> f64 {
        y.atan2(x) + (y / x).atan()
    }

    /// `x^y` with both active, and `inv(x)`.
    #[differentiable(order = 2)]
    pub fn pow_inv(x: f64, y: f64) -> f64 {
        x.powf(y) + x.recip() * y
    }
}

/// ChainRules' `rrule`s written as `#[custom_gradient]` (and one `#[gradient_of]`), used inside
/// differentiable losses at `order = 2`.
pub mod rrules {
    use autodiff::{custom_gradient, differentiable, gradient_of};

    /// `hypot`'s rrule: `(dy x / r, dy y / r)`.
    #[custom_gradient]
    pub fn hypot_rule(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let r = (x * x + y * y).sqrt();
        (r, move |dy| (dy * x / r, dy * y / r))
    }

    /// The logistic function with its rrule `dy s (1 - s)`, the value computed stably on each side.
    #[custom_gradient]
    pub fn logistic_rule(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let s = if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            let e = x.exp();
            e / (1.0 + e)
        };
        (s, move |dy| dy * s * (1.0 - s))
    }

    /// `logsumexp`'s rrule over a slice: `dy softmax(x)`.
    #[custom_gradient]
    pub fn logsumexp_rule(x: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
        let mut m = x[0];
        for &v in x {
            m = m.max(v);
        }
        let mut s = 0.0;
        for &v in x {
            s += (v - m).exp();
        }
        let lse = m + s.ln();
        let p: Vec<f64> = x.iter().map(|v| (v - lse).exp()).collect();
        (lse, move |dy| p.iter().map(|q| dy * q).collect())
    }

    /// `erfc'(x) = -2/sqrt(pi) e^(-x^2)`, registered for `libm::erfc`.
    #[gradient_of(libm::erfc)]
    fn erfc_vjp(x: f64, dy: f64) -> f64 {
        -dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
    }

    /// A distance loss through the hypot rule, in a loop over points.
    #[differentiable(order = 2, wrt(p))]
    pub fn distances(p: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let d = hypot_rule(p[0] - xs[i], p[1] - ys[i]);
            s += d * d * d;
        }
        s
    }

    /// Logistic regression's cross-entropy through the logistic rule.
    #[differentiable(order = 2, wrt(w))]
    pub fn logistic_xent(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let mut z = 0.0;
            for j in 0..w.len() {
                z += w[j] * x[i][j];
            }
            let p = logistic_rule(z);
            s -= y[i] * p.ln() + (1.0 - y[i]) * (1.0 - p).ln();
        }
        s
    }

    /// A softmax cross-entropy over rows through the `logsumexp` rule, each row passed as a sub-slice.
    #[differentiable(order = 2)]
    pub fn lse_rows(z: &[f64], k: usize) -> f64 {
        let mut s = 0.0;
        let rows = z.len() / k;
        for r in 0..rows {
            s += logsumexp_rule(&z[r * k..(r + 1) * k]) - z[r * k + r % k];
        }
        s
    }

    /// The Gaussian tail probability `erfc(x / sqrt 2) / 2` of each residual, summed.
    #[differentiable(order = 2)]
    pub fn tail_mass(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += 0.5 * libm::erfc(v / std::f64::consts::SQRT_2);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// PyTorch gradcheck-style losses, activations and layers.
// ---------------------------------------------------------------------------------------------------

pub mod torch {
    use autodiff::differentiable;

    /// `HuberLoss(delta)`: a branch inside the loop.
    #[differentiable(order = 2, wrt(pred))]
    pub fn huber(pred: &[f64], target: &[f64], delta: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..pred.len() {
            let d = (pred[i] - target[i]).abs();
            if d < delta {
                s += 0.5 * d * d;
            } else {
                s += delta * (d - 0.5 * delta);
            }
        }
        s / pred.len() as f64
    }

    /// `SmoothL1Loss(beta)`, the branch as an `if` expression, `target` active too.
    #[differentiable(order = 2, wrt(pred, target))]
    pub fn smooth_l1(pred: &[f64], target: &[f64], beta: f64) -> f64 {
        let mut s = 0.0;
        for (p, t) in pred.iter().zip(target.iter()) {
            let d = (p - t).abs();
            s += if d < beta {
                0.5 * d * d / beta
            } else {
                d - 0.5 * beta
            };
        }
        s / pred.len() as f64
    }

    /// `log(cosh(pred - target))`, written stably: `|d| + log1p(exp(-2|d|)) - log 2`.
    #[differentiable(order = 2)]
    pub fn log_cosh(pred: &[f64], target: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..pred.len() {
            let d = pred[i] - target[i];
            s += d.abs() + (-2.0 * d.abs()).exp().ln_1p() - std::f64::consts::LN_2;
        }
        s
    }

    /// The binary focal loss on logits (`gamma = 2`, `alpha = 0.25`), labels as data.
    #[differentiable(order = 2, wrt(logits))]
    pub fn focal(logits: &[f64], labels: &[f64]) -> f64 {
        let (gamma, alpha) = (2.0, 0.25);
        let mut s = 0.0;
        for i in 0..logits.len() {
            let p = 1.0 / (1.0 + (-logits[i]).exp());
            let (pt, at) = if labels[i] > 0.5 {
                (p, alpha)
            } else {
                (1.0 - p, 1.0 - alpha)
            };
            s -= at * (1.0 - pt).powf(gamma) * pt.ln();
        }
        s
    }

    /// `KLDivLoss` on log-probabilities `logp` against probabilities `q`, both active.
    #[differentiable(order = 2)]
    pub fn kl_div(logp: &[f64], q: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..q.len() {
            s += q[i] * (q[i].ln() - logp[i]);
        }
        s
    }

    /// `cosine_similarity(a, b)` with an epsilon floor on the norms' product.
    #[differentiable(order = 2)]
    pub fn cosine_similarity(a: &[f64], b: &[f64]) -> f64 {
        let mut ab = 0.0;
        let mut aa = 0.0;
        let mut bb = 0.0;
        for i in 0..a.len() {
            ab += a[i] * b[i];
            aa += a[i] * a[i];
            bb += b[i] * b[i];
        }
        ab / (aa * bb).sqrt().max(1e-8)
    }

    /// `layer_norm(x, gamma, beta)`.
    #[differentiable]
    pub fn layer_norm(x: &[f64], gamma: &[f64], beta: &[f64]) -> Vec<f64> {
        let n = x.len() as f64;
        let mu = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / n;
        let inv = 1.0 / (var + 1e-5).sqrt();
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = (x[i] - mu) * inv * gamma[i] + beta[i];
        }
        y
    }

    /// `sum(w .* layer_norm(x, gamma, beta))` with a fixed `w`, through the call.
    #[differentiable(order = 2)]
    pub fn layer_norm_loss(x: &[f64], gamma: &[f64], beta: &[f64]) -> f64 {
        let y = layer_norm(x, gamma, beta);
        let mut s = 0.0;
        for i in 0..y.len() {
            s += (i as f64 - 1.5) * y[i] + 0.1 * y[i] * y[i];
        }
        s
    }

    /// `BatchNorm1d` in training mode over a batch (rows are samples), then a weighted sum of squares.
    #[differentiable(order = 2)]
    pub fn batch_norm(x: &[Vec<f64>], gamma: &[f64], beta: &[f64]) -> f64 {
        let b = x.len();
        let f = gamma.len();
        let mut loss = 0.0;
        for j in 0..f {
            let mut mu = 0.0;
            for i in 0..b {
                mu += x[i][j];
            }
            mu /= b as f64;
            let mut var = 0.0;
            for i in 0..b {
                var += (x[i][j] - mu).powi(2);
            }
            var /= b as f64;
            for i in 0..b {
                let y = gamma[j] * (x[i][j] - mu) / (var + 1e-5).sqrt() + beta[j];
                loss += (1.0 + 0.5 * i as f64) * y * y.tanh();
            }
        }
        loss
    }

    /// Scaled dot-product attention with a max-subtracted softmax over the keys, the output summed with
    /// weights.
    #[differentiable(order = 2)]
    pub fn attention(q: &[Vec<f64>], k: &[Vec<f64>], v: &[Vec<f64>]) -> f64 {
        let d = q[0].len();
        let scale = 1.0 / (d as f64).sqrt();
        let mut total = 0.0;
        for i in 0..q.len() {
            let mut scores = vec![0.0; k.len()];
            for j in 0..k.len() {
                let mut s = 0.0;
                for c in 0..d {
                    s += q[i][c] * k[j][c];
                }
                scores[j] = s * scale;
            }
            let mut m = scores[0];
            for j in 1..k.len() {
                if scores[j] > m {
                    m = scores[j];
                }
            }
            let mut z = 0.0;
            for j in 0..k.len() {
                scores[j] = (scores[j] - m).exp();
                z += scores[j];
            }
            for c in 0..v[0].len() {
                let mut o = 0.0;
                for j in 0..k.len() {
                    o += scores[j] / z * v[j][c];
                }
                total += (1.0 + (i + c) as f64 * 0.3) * o;
            }
        }
        total
    }

    /// `BCEWithLogitsLoss`, the stable form `max(z, 0) - z y + log1p(exp(-|z|))`.
    #[differentiable(order = 2, wrt(z))]
    pub fn bce_with_logits(z: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..z.len() {
            s += z[i].max(0.0) - z[i] * y[i] + (-z[i].abs()).exp().ln_1p();
        }
        s / z.len() as f64
    }

    /// `HingeEmbeddingLoss`-like `sum(max(0, 1 - y x))`, labels as data, `continue` on the flat part.
    #[differentiable(order = 2, wrt(x))]
    pub fn hinge(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let m = 1.0 - y[i] * x[i];
            if m <= 0.0 {
                continue;
            }
            s += m;
        }
        s
    }

    /// `MarginRankingLoss(margin)`.
    #[differentiable(order = 2, wrt(x1, x2))]
    pub fn margin_ranking(x1: &[f64], x2: &[f64], y: &[f64], margin: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x1.len() {
            s += (-y[i] * (x1[i] - x2[i]) + margin).max(0.0);
        }
        s
    }

    /// `TripletMarginLoss` with the Euclidean distance (an epsilon inside the root, as torch's).
    #[differentiable(order = 2)]
    pub fn triplet_margin(a: &[f64], p: &[f64], n: &[f64]) -> f64 {
        let mut dp = 0.0;
        let mut dn = 0.0;
        for i in 0..a.len() {
            dp += (a[i] - p[i] + 1e-6).powi(2);
            dn += (a[i] - n[i] + 1e-6).powi(2);
        }
        (dp.sqrt() - dn.sqrt() + 1.0).max(0.0)
    }

    /// `PoissonNLLLoss(log_input = true)`.
    #[differentiable(order = 2, wrt(log_input))]
    pub fn poisson_nll(log_input: &[f64], target: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..log_input.len() {
            s += log_input[i].exp() - target[i] * log_input[i];
        }
        s
    }

    /// `GaussianNLLLoss` with the variance active and clamped from below.
    #[differentiable(order = 2, wrt(mu, var))]
    pub fn gaussian_nll(mu: &[f64], target: &[f64], var: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..mu.len() {
            let v = var[i].max(1e-6);
            s += 0.5 * (v.ln() + (mu[i] - target[i]).powi(2) / v);
        }
        s / mu.len() as f64
    }

    /// `CrossEntropyLoss(label_smoothing = eps)` over a batch of logit rows, labels as integers.
    #[differentiable(order = 2, wrt(logits))]
    pub fn cross_entropy_smoothed(logits: &[Vec<f64>], labels: &[usize], eps: f64) -> f64 {
        let mut loss = 0.0;
        for (r, row) in logits.iter().enumerate() {
            let k = row.len();
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let lse = m + row.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
            for c in 0..k {
                let target = if c == labels[r] {
                    1.0 - eps + eps / k as f64
                } else {
                    eps / k as f64
                };
                loss -= target * (row[c] - lse);
            }
        }
        loss / logits.len() as f64
    }

    /// `MSELoss` plus `L1Loss`.
    #[differentiable(order = 2)]
    pub fn mse_l1(pred: &[f64], target: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..pred.len() {
            let d = pred[i] - target[i];
            s += d * d + d.abs();
        }
        s / pred.len() as f64
    }

    /// `SoftMarginLoss`.
    #[differentiable(order = 2, wrt(x))]
    pub fn soft_margin(x: &[f64], y: &[f64]) -> f64 {
        x.iter()
            .zip(y.iter())
            .map(|(a, b)| (-a * b).exp().ln_1p())
            .sum::<f64>()
            / x.len() as f64
    }

    /// `CosineEmbeddingLoss` for one pair with label `y` (1 or -1), by an early `return`.
    #[differentiable(order = 2, wrt(a, b))]
    pub fn cosine_embedding(a: &[f64], b: &[f64], y: i32, margin: f64) -> f64 {
        let c = cosine_similarity(a, b);
        if y == 1 {
            return 1.0 - c;
        }
        (c - margin).max(0.0)
    }

    /// Dropout with a fixed mask as data, then a sum of squares.
    #[differentiable(order = 2, wrt(x))]
    pub fn dropout(x: &[f64], mask: &[bool], p: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            if mask[i] {
                let y = x[i] / (1.0 - p);
                s += y * y;
            }
        }
        s
    }

    /// `ELU(alpha = 1.3)`.
    #[differentiable(order = 3)]
    pub fn elu(x: f64) -> f64 {
        if x > 0.0 {
            x
        } else {
            1.3 * x.exp_m1()
        }
    }

    /// `SELU`.
    #[differentiable(order = 3)]
    pub fn selu(x: f64) -> f64 {
        let alpha = 1.673_263_242_354_377_3;
        let scale = 1.050_700_987_355_480_5;
        scale * if x > 0.0 { x } else { alpha * (x.exp() - 1.0) }
    }

    /// `GELU(approximate = "tanh")`.
    #[differentiable(order = 3)]
    pub fn gelu_tanh(x: f64) -> f64 {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x.powi(3))).tanh())
    }

    /// `SiLU`.
    #[differentiable(order = 3)]
    pub fn silu(x: f64) -> f64 {
        x / (1.0 + (-x).exp())
    }

    /// `Mish`: `x tanh(softplus(x))`.
    #[differentiable(order = 3)]
    pub fn mish(x: f64) -> f64 {
        x * x.exp().ln_1p().tanh()
    }

    /// `Hardtanh` times `x`, by `clamp`.
    #[differentiable(order = 2)]
    pub fn hardtanh(x: f64) -> f64 {
        x.clamp(-1.0, 1.0) * x
    }

    /// `LeakyReLU(0.01)` of `x^3`.
    #[differentiable(order = 3)]
    pub fn leaky_relu(x: f64) -> f64 {
        let y = x * x * x;
        if y >= 0.0 {
            y
        } else {
            0.01 * y
        }
    }

    /// `ReLU6(x) * x`, as `min(max(x, 0), 6)`.
    #[differentiable(order = 2)]
    pub fn relu6(x: f64) -> f64 {
        x.max(0.0).min(6.0) * x
    }

    /// `Hardswish`: a three-way branch by `else if`.
    #[differentiable(order = 2)]
    pub fn hardswish(x: f64) -> f64 {
        if x <= -3.0 {
            0.0
        } else if x >= 3.0 {
            x
        } else {
            x * (x + 3.0) / 6.0
        }
    }

    /// `Softsign`.
    #[differentiable(order = 3)]
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }

    /// `Tanhshrink`.
    #[differentiable(order = 3)]
    pub fn tanhshrink(x: f64) -> f64 {
        x - x.tanh()
    }

    /// `LogSigmoid`, stable: `min(x, 0) - log1p(exp(-|x|))`.
    #[differentiable(order = 3)]
    pub fn logsigmoid(x: f64) -> f64 {
        x.min(0.0) - (-x.abs()).exp().ln_1p()
    }

    /// `Softplus(beta = 2, threshold = 5)`: linear above the threshold, by an early `return`.
    #[differentiable(order = 3)]
    pub fn softplus_threshold(x: f64) -> f64 {
        let beta = 2.0;
        if beta * x > 5.0 {
            return x;
        }
        (beta * x).exp().ln_1p() / beta
    }

    /// A GRU cell step (torch's gate order `r, z, n`), weights as matrices, the new state into an
    /// output parameter.
    #[differentiable]
    pub fn gru_cell(
        x: &[f64],
        h: &[f64],
        w: &[Vec<f64>],
        u: &[Vec<f64>],
        b: &[f64],
        h_new: &mut [f64],
    ) {
        let n = h.len();
        let mut r = vec![0.0; n];
        let mut z = vec![0.0; n];
        for i in 0..n {
            let mut ar = b[i];
            let mut az = b[n + i];
            for j in 0..x.len() {
                ar += w[i][j] * x[j];
                az += w[n + i][j] * x[j];
            }
            for j in 0..n {
                ar += u[i][j] * h[j];
                az += u[n + i][j] * h[j];
            }
            r[i] = 1.0 / (1.0 + (-ar).exp());
            z[i] = 1.0 / (1.0 + (-az).exp());
        }
        for i in 0..n {
            let mut an = b[2 * n + i];
            for j in 0..x.len() {
                an += w[2 * n + i][j] * x[j];
            }
            let mut hn = 0.0;
            for j in 0..n {
                hn += u[2 * n + i][j] * h[j];
            }
            let cand = (an + r[i] * hn).tanh();
            h_new[i] = (1.0 - z[i]) * cand + z[i] * h[i];
        }
    }

    /// An LSTM cell step (gates `i, f, g, o`), the new hidden and cell states into two outputs.
    #[differentiable]
    pub fn lstm_cell(
        x: &[f64],
        h: &[f64],
        c: &[f64],
        w: &[Vec<f64>],
        b: &[f64],
        h_new: &mut [f64],
        c_new: &mut [f64],
    ) {
        let n = h.len();
        let mut gates = vec![0.0; 4 * n];
        for g in 0..4 * n {
            let mut a = b[g];
            for j in 0..x.len() {
                a += w[g][j] * x[j];
            }
            for j in 0..n {
                a += w[g][x.len() + j] * h[j];
            }
            gates[g] = a;
        }
        for k in 0..n {
            let ig = 1.0 / (1.0 + (-gates[k]).exp());
            let fg = 1.0 / (1.0 + (-gates[n + k]).exp());
            let gg = gates[2 * n + k].tanh();
            let og = 1.0 / (1.0 + (-gates[3 * n + k]).exp());
            c_new[k] = fg * c[k] + ig * gg;
            h_new[k] = og * c_new[k].tanh();
        }
    }

    /// Two LSTM steps over a sequence of two inputs, then a loss on the last hidden state: the cell
    /// called in a loop with local state buffers passed as outputs and read back.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn lstm_sequence(xs: &[Vec<f64>], w: &[Vec<f64>], b: &[f64], n: usize) -> f64 {
        let mut h = vec![0.0; n];
        let mut c = vec![0.0; n];
        let mut h2 = vec![0.0; n];
        let mut c2 = vec![0.0; n];
        for t in 0..xs.len() {
            lstm_cell(&xs[t], &h, &c, w, b, &mut h2, &mut c2);
            for k in 0..n {
                h[k] = h2[k];
                c[k] = c2[k];
            }
        }
        let mut s = 0.0;
        for k in 0..n {
            s += (k as f64 + 1.0) * h[k];
        }
        s
    }

    /// An Elman RNN over a sequence with an early `break` at a length given as data: `h` carried in a
    /// `Vec` overwritten each step.
    #[differentiable(order = 2, wrt(w, u))]
    pub fn rnn_until(xs: &[f64], w: &[f64], u: &[Vec<f64>], len: usize) -> f64 {
        let n = w.len();
        let mut h = vec![0.0; n];
        let mut t = 0;
        loop {
            if t >= len {
                break;
            }
            let mut next = vec![0.0; n];
            for i in 0..n {
                let mut a = w[i] * xs[t];
                for j in 0..n {
                    a += u[i][j] * h[j];
                }
                next[i] = a.tanh();
            }
            for i in 0..n {
                h[i] = next[i];
            }
            t += 1;
        }
        h.iter().sum()
    }
}

// ---------------------------------------------------------------------------------------------------
// Control flow and numerical kernels that stress the reverse sweep.
// ---------------------------------------------------------------------------------------------------

pub mod kernels {
    use autodiff::differentiable;

    /// Insertion sort of a copy (a `while` with a compound condition shifting entries), then the
    /// median-ish weighted middle.
    #[differentiable(order = 2)]
    pub fn insertion_sort_mid(x: &[f64]) -> f64 {
        let mut s = x.to_vec();
        for i in 1..s.len() {
            let key = s[i];
            let mut j = i;
            while j > 0 && s[j - 1] > key {
                s[j] = s[j - 1];
                j -= 1;
            }
            s[j] = key;
        }
        let m = s.len() / 2;
        s[m] * s[m] + 0.5 * s[0] - s[s.len() - 1].sin()
    }

    /// Newton's iteration for `sqrt(a)` until a float tolerance (`while` on the residual).
    #[differentiable(order = 2)]
    pub fn newton_sqrt(a: f64) -> f64 {
        let mut x = a.max(1.0);
        let mut it = 0;
        while (x * x - a).abs() > 1e-15 * a && it < 60 {
            x = 0.5 * (x + a / x);
            it += 1;
        }
        x
    }

    /// A fixed-point iteration `x = cos(a x)`, stopped by a `break` once converged.
    #[differentiable]
    pub fn fixed_point_cos(a: f64) -> f64 {
        let mut x = 0.5;
        for _ in 0..200 {
            let next = (a * x).cos();
            if (next - x).abs() < 1e-14 {
                x = next;
                break;
            }
            x = next;
        }
        x
    }

    /// Power iteration on a 3x3 matrix for a fixed number of steps, then the Rayleigh quotient.
    #[differentiable(order = 2)]
    pub fn power_iteration(a: [[f64; 3]; 3]) -> f64 {
        let mut v = [1.0, 0.5, 0.25];
        for _ in 0..8 {
            let mut w = [0.0; 3];
            for i in 0..3 {
                for j in 0..3 {
                    w[i] += a[i][j] * v[j];
                }
            }
            let n = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
            for i in 0..3 {
                v[i] = w[i] / n;
            }
        }
        let mut num = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                num += v[i] * a[i][j] * v[j];
            }
        }
        num / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    }

    /// The right-hand side `y' = -k y + sin(t) y^2 / 4`.
    #[differentiable]
    pub fn rhs(t: f64, y: f64, k: f64) -> f64 {
        -k * y + t.sin() * y * y / 4.0
    }

    /// Classic RK4 from `t = 0` with `steps` steps, calling `rhs` four times a step.
    #[differentiable(order = 2, wrt(y0, k))]
    pub fn rk4(y0: f64, k: f64, h: f64, steps: usize) -> f64 {
        let mut y = y0;
        let mut t = 0.0;
        for _ in 0..steps {
            let k1 = rhs(t, y, k);
            let k2 = rhs(t + h / 2.0, y + h / 2.0 * k1, k);
            let k3 = rhs(t + h / 2.0, y + h / 2.0 * k2, k);
            let k4 = rhs(t + h, y + h * k3, k);
            y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
            t += h;
        }
        y
    }

    /// Simpson's rule for `int_0^1 exp(-a x^2) cos(b x) dx`, odd and even nodes by `%`.
    #[differentiable(order = 3, wrt(a))]
    pub fn simpson(a: f64, b: f64, n: usize) -> f64 {
        let h = 1.0 / n as f64;
        let mut s = 1.0 + (-a).exp() * b.cos();
        for i in 1..n {
            let x = i as f64 * h;
            let f = (-a * x * x).exp() * (b * x).cos();
            s += if i % 2 == 1 { 4.0 * f } else { 2.0 * f };
        }
        s * h / 3.0
    }

    /// The Thomas algorithm for a tridiagonal system: `c'` and `d'` made in place, then back
    /// substitution into the result.
    #[differentiable]
    pub fn thomas(lower: &[f64], diag: &[f64], upper: &[f64], d: &[f64]) -> Vec<f64> {
        let n = diag.len();
        let mut cp = vec![0.0; n];
        let mut dp = vec![0.0; n];
        cp[0] = upper[0] / diag[0];
        dp[0] = d[0] / diag[0];
        for i in 1..n {
            let m = diag[i] - lower[i] * cp[i - 1];
            if i < n - 1 {
                cp[i] = upper[i] / m;
            }
            dp[i] = (d[i] - lower[i] * dp[i - 1]) / m;
        }
        let mut x = vec![0.0; n];
        x[n - 1] = dp[n - 1];
        for i in (0..n - 1).rev() {
            x[i] = dp[i] - cp[i] * x[i + 1];
        }
        x
    }

    /// A partial sum with an early `return` from inside the loop once it passes a threshold.
    #[differentiable(order = 2, wrt(x))]
    pub fn early_return_sum(x: &[f64], threshold: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
            if s > threshold {
                return s.sqrt() * x[i];
            }
        }
        -s
    }

    /// The product up to the first negative entry (`break`), then the rest summed.
    #[differentiable(order = 2)]
    pub fn product_until_negative(x: &[f64]) -> f64 {
        let mut p = 1.0;
        let mut k = x.len();
        for i in 0..x.len() {
            if x[i] < 0.0 {
                k = i;
                break;
            }
            p *= x[i];
        }
        let mut rest = 0.0;
        for i in k..x.len() {
            rest += x[i].exp();
        }
        p + rest
    }

    /// `while i < n && x[i] > 0` with the index advanced by hand.
    #[differentiable(order = 2)]
    pub fn positive_prefix(x: &[f64]) -> f64 {
        let mut i = 0;
        let mut s = 0.0;
        while i < x.len() && x[i] > 0.0 {
            s += x[i].ln() * (i as f64 + 1.0);
            i += 1;
        }
        s + i as f64
    }

    /// A labelled `break` out of a nested loop over a matrix once a running sum passes a bound.
    #[differentiable(order = 2, wrt(m))]
    pub fn labelled_break(m: &[Vec<f64>], bound: f64) -> f64 {
        let mut s = 0.0;
        let mut last = 0.0;
        'outer: for i in 0..m.len() {
            for j in 0..m[i].len() {
                s += m[i][j] * m[i][j];
                last = m[i][j];
                if s > bound {
                    break 'outer;
                }
            }
        }
        s + last.sin()
    }

    /// A leaky recurrence with a branch on the previous value, stored in a `Vec` and read next step.
    #[differentiable(order = 2)]
    pub fn leaky_recurrence(x: &[f64], a: f64, b: f64) -> f64 {
        let mut h = vec![0.0; x.len() + 1];
        h[0] = 0.3;
        for t in 0..x.len() {
            let prev = h[t];
            h[t + 1] = if prev > 0.0 { a * prev } else { b * prev } + x[t];
        }
        h[x.len()] * h[x.len() / 2]
    }

    /// A `loop` with a counter and a `break` carrying the value.
    #[differentiable(order = 3)]
    pub fn loop_break_value(x: f64) -> f64 {
        let mut y = x;
        let mut k = 0;
        let r = loop {
            y = y.sin() + 0.5 * x;
            k += 1;
            if k == 5 {
                break y * y;
            }
        };
        r
    }

    /// `x / norm(x)`.
    #[differentiable]
    pub fn normalize(x: &[f64]) -> Vec<f64> {
        let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = x[i] / n;
        }
        out
    }

    /// The mean and standard deviation as a tuple.
    #[differentiable]
    pub fn stats(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / n;
        (m, v.sqrt())
    }

    /// A weighted entry of a data matrix, the row chosen by an integer.
    #[differentiable]
    pub fn weighted_row(w: &[f64], data: &[Vec<f64>], row: usize) -> f64 {
        let mut s = 0.0;
        for j in 0..w.len() {
            s += w[j] * data[row][j];
        }
        s
    }

    /// Calls between differentiable functions with arrays and data: `normalize` (a `Vec`), `stats` (a
    /// tuple), `weighted_row` (data and an integer).
    #[differentiable(order = 2, wrt(x))]
    pub fn composed(x: &[f64], data: &[Vec<f64>]) -> f64 {
        let u = normalize(x);
        let (m, s) = stats(&u);
        let mut t = 0.0;
        for r in 0..data.len() {
            t += weighted_row(&u, data, r).tanh();
        }
        // `stats(x).1` is a spanned error by design (tests/ui/activity/tuple-field-of-call.rs).
        let (_, sx) = stats(x);
        t + m * s + sx
    }

    /// `exp(A)` of a 2x2 matrix by scaling and squaring with a Taylor series: local matrices written
    /// over and over; the trace plus one off-diagonal entry.
    #[differentiable(order = 2)]
    pub fn expm2(a: [[f64; 2]; 2]) -> f64 {
        let s = 4.0;
        let mut b = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                b[i][j] = a[i][j] / 2.0_f64.powf(s);
            }
        }
        let mut e: [[f64; 2]; 2] = [[1.0, 0.0], [0.0, 1.0]];
        let mut term = [[1.0, 0.0], [0.0, 1.0]];
        for k in 1..10 {
            let mut next = [[0.0; 2]; 2];
            for i in 0..2 {
                for j in 0..2 {
                    for l in 0..2 {
                        next[i][j] += term[i][l] * b[l][j] / k as f64;
                    }
                }
            }
            for i in 0..2 {
                for j in 0..2 {
                    term[i][j] = next[i][j];
                    e[i][j] += next[i][j];
                }
            }
        }
        for _ in 0..4 {
            let mut sq = [[0.0; 2]; 2];
            for i in 0..2 {
                for j in 0..2 {
                    for l in 0..2 {
                        sq[i][j] += e[i][l] * e[l][j];
                    }
                }
            }
            e = sq;
        }
        e[0][0] + e[1][1] + 0.5 * e[0][1]
    }

    /// The logistic map iterated `n` times from `0.3`, in the rate `r`.
    #[differentiable(order = 3)]
    pub fn logistic_map(r: f64, n: usize) -> f64 {
        let mut x = 0.3;
        for _ in 0..n {
            x = r * x * (1.0 - x);
        }
        x
    }

    /// The cumulative trapezoid of samples `y` at unit spacing, then its sum of squares.
    #[differentiable(order = 2)]
    pub fn cumtrapz_sq(y: &[f64]) -> f64 {
        let mut c = vec![0.0; y.len()];
        for i in 1..y.len() {
            c[i] = c[i - 1] + 0.5 * (y[i - 1] + y[i]);
        }
        c.iter().map(|v| v * v).sum()
    }

    /// The generic Rosenbrock over `T: Float`, as in the API's example.
    #[differentiable(order = 2)]
    pub fn rosenbrock_generic<T: autodiff::Float>(x: &[T]) -> T {
        let mut s = T::zero();
        let hundred = T::from(100.0).unwrap();
        for i in 0..x.len() - 1 {
            let a = T::one() - x[i];
            let b = x[i + 1] - x[i] * x[i];
            s = s + a * a + hundred * b * b;
        }
        s
    }

    /// Polynomial division remainder by synthetic division: coefficients overwritten from the top.
    #[differentiable(order = 2, wrt(p, r))]
    pub fn synthetic_division(p: &[f64], r: f64) -> f64 {
        let mut q = p.to_vec();
        let n = q.len();
        for i in (0..n - 1).rev() {
            q[i] += r * q[i + 1];
        }
        q[0] + q[1] * q[2]
    }
}

// ---------------------------------------------------------------------------------------------------
// More shapes for the reverse sweep: arrays returned early, parameters taken by value and written,
// stacks, recursion over sub-slices, windows written through calls.
// ---------------------------------------------------------------------------------------------------

pub mod sweeps {
    use autodiff::differentiable;

    /// The first row of `m` whose sum passes `t`, scaled, as the value of an `if` after the loop; the
    /// last row otherwise. (Returned early from inside the loop, the array is a spanned error by design:
    /// tests/ui/arrays/array-returned-from-loop.rs.)
    #[differentiable(wrt(m))]
    pub fn first_heavy_row(m: [[f64; 3]; 3], t: f64) -> [f64; 3] {
        let mut found = 3;
        for i in 0..3 {
            let s = m[i][0] + m[i][1] + m[i][2];
            if s > t {
                found = i;
                break;
            }
        }
        if found < 3 {
            let s = m[found][0] + m[found][1] + m[found][2];
            [m[found][0] * s, m[found][1] * s, m[found][2] * s]
        } else {
            [m[2][0], m[2][1] * 2.0, m[2][2] * 3.0]
        }
    }

    /// Gauss-Jordan elimination in place on a matrix parameter taken by value (`mut a`), no pivoting:
    /// every entry overwritten several times, then the determinant as the product of the pivots.
    #[differentiable(order = 2)]
    pub fn det_gauss_jordan(mut a: [[f64; 3]; 3]) -> f64 {
        let mut det = 1.0;
        for k in 0..3 {
            let p = a[k][k];
            det *= p;
            for j in 0..3 {
                a[k][j] /= p;
            }
            for i in 0..3 {
                if i != k {
                    let f = a[i][k];
                    for j in 0..3 {
                        a[i][j] -= f * a[k][j];
                    }
                }
            }
        }
        det + 0.1 * a[0][2] * a[1][2]
    }

    /// A matrix parameter `mut m: Vec<Vec<f64>>` smoothed in place, row by row, several sweeps.
    #[differentiable(order = 2)]
    pub fn smooth_in_place(mut m: Vec<Vec<f64>>, sweeps: usize) -> f64 {
        for _ in 0..sweeps {
            for i in 1..m.len() {
                for j in 0..m[i].len() {
                    m[i][j] = 0.5 * (m[i][j] + m[i - 1][j].sin());
                }
            }
        }
        let mut s = 0.0;
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                s += m[i][j] * m[i][j];
            }
        }
        s
    }

    /// A stack: values pushed in a `while` loop until one is negative, then popped in reverse order
    /// (read back by index) with a Horner-like accumulation.
    #[differentiable(order = 2)]
    pub fn stack_horner(x: &[f64]) -> f64 {
        let mut stack = Vec::new();
        let mut i = 0;
        while i < x.len() {
            if x[i] < 0.0 {
                break;
            }
            stack.push(x[i] * x[i] + 1.0);
            i += 1;
        }
        let mut acc = 0.0;
        let mut k = stack.len();
        while k > 0 {
            k -= 1;
            acc = acc * 0.5 + stack[k];
        }
        acc
    }

    /// Zygote's recursion over halves: the sum of `sin` by splitting a slice in two.
    #[differentiable(order = 2)]
    pub fn split_sum(x: &[f64]) -> f64 {
        if x.len() == 1 {
            return x[0].sin();
        }
        let h = x.len() / 2;
        split_sum(&x[..h]) * split_sum(&x[h..]) + split_sum(&x[h..])
    }

    /// `out[i] = a x[i]^2` for a window: called on halves of a local buffer.
    #[differentiable]
    pub fn scale_sq_into(a: f64, x: &[f64], out: &mut [f64]) {
        for i in 0..out.len() {
            out[i] = a * x[i] * x[i];
        }
    }

    /// A buffer written through calls on windows (`&mut k[..h]`, `&mut k[h..]`), then read.
    #[differentiable(order = 2)]
    pub fn windows_through_calls(x: &[f64], a: f64, b: f64) -> f64 {
        let n = x.len();
        let h = n / 2;
        let mut k = vec![0.0; n];
        scale_sq_into(a, &x[..h], &mut k[..h]);
        scale_sq_into(b, &x[h..], &mut k[h..]);
        let mut s = 0.0;
        for i in 0..n {
            s += k[i] * x[(i + 1) % n];
        }
        s
    }

    /// A local closure called in a loop, a `match` on a range pattern of the index, `step_by`.
    #[differentiable(order = 2)]
    pub fn closure_match_steps(x: &[f64]) -> f64 {
        let sq = |v: f64| v * v;
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            s += match i {
                0 => sq(x[i]),
                1..=3 => x[i].sin() * sq(x[i]),
                _ => x[i].exp(),
            };
        }
        for (i, &v) in x.iter().enumerate() {
            if i % 2 == 0 {
                continue;
            }
            if v > 1.5 {
                break;
            }
            s += sq(v - 0.5);
        }
        s
    }

    /// An array shadowed inside the loop: each step makes a new array from the previous one.
    #[differentiable(order = 2)]
    pub fn shadowed_arrays(x: [f64; 3]) -> f64 {
        let mut v = x;
        for _ in 0..3 {
            let v2 = [v[1] * v[2], v[2] + v[0], v[0].sin()];
            let v3 = [v2[0] + v[0], v2[1], v2[2] * v2[1]];
            for k in 0..3 {
                v[k] = v3[k];
            }
        }
        v[0] + v[1] * v[2]
    }

    /// A matrix array result (`f_jacobian` of a nested-array input, an array result).
    #[differentiable]
    pub fn row_norms(m: &[Vec<f64>]) -> Vec<f64> {
        let mut out = vec![0.0; m.len()];
        for i in 0..m.len() {
            let mut s = 0.0;
            for &v in m[i].iter() {
                s += v * v;
            }
            out[i] = s.sqrt();
        }
        out
    }

    /// A generic helper called from an `f64` function.
    #[differentiable]
    pub fn soft_abs<T: autodiff::Float>(x: T) -> T {
        (x * x + T::from(0.01).unwrap()).sqrt()
    }

    /// Total variation with the generic smooth absolute value.
    #[differentiable(order = 3)]
    pub fn total_variation(x: f64) -> f64 {
        let mut s = 0.0;
        let mut prev = x;
        for k in 1..5 {
            let next = (prev * k as f64).cos();
            s += soft_abs(next - prev);
            prev = next;
        }
        s
    }

    /// A `while` loop on a float condition whose trip count depends on the input (a jump between
    /// counts, smooth within one), reading and writing a local array by a moving index.
    #[differentiable(order = 2)]
    pub fn float_while(x: &[f64]) -> f64 {
        let mut buf = [0.0; 8];
        let mut t = 0.0;
        let mut i = 0;
        while t < 2.0 && i < 8 {
            buf[i] = x[i % x.len()].exp() * 0.3;
            t += buf[i];
            if i > 0 {
                buf[i] += 0.5 * buf[i - 1];
            }
            i += 1;
        }
        let mut s = 0.0;
        for k in 0..i {
            s += buf[k] * buf[k];
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Idioms of numeric Rust around the ported code.
// ---------------------------------------------------------------------------------------------------

pub mod idioms {
    use autodiff::differentiable;

    /// `maximum(x) + sum(exp, x)` in iterator idioms: `copied().fold(NEG_INFINITY, f64::max)` and
    /// `cloned().map(f64::exp)`.
    #[differentiable(order = 2)]
    pub fn fold_max_map_exp(x: &[f64]) -> f64 {
        x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            + x.iter().cloned().map(f64::exp).sum::<f64>()
    }

    /// `maximum(x) - minimum(x) + maximum(x) * minimum(x)` by folds from `f64::MIN` and `f64::MAX`.
    #[differentiable(order = 2)]
    pub fn range_product(x: &[f64]) -> f64 {
        let hi = x.iter().cloned().fold(f64::MIN, f64::max);
        let lo = x.iter().cloned().fold(f64::MAX, f64::min);
        hi - lo + hi * lo
    }

    /// A weighted dot, a reversed Horner pass by `.iter().rev()`, and `.skip(1).take(2)`.
    #[differentiable(order = 2)]
    pub fn rev_skip_take(x: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += (i as f64 + 1.0) * x[i] * w[i];
        }
        for &v in x.iter().rev() {
            s = s * 0.5 + v;
        }
        s + x.iter().skip(1).take(2).map(|v| v * v).sum::<f64>()
    }

    /// The norm into a float output parameter, written by `*y +=` and read by a method (`y.sqrt()`).
    #[differentiable]
    pub fn norm_out(x: &[f64], y: &mut f64) {
        *y = 0.0;
        for &v in x {
            *y += v * v;
        }
        *y = y.sqrt();
    }

    /// A tuple parameter.
    #[differentiable(order = 2)]
    pub fn tuple_param(p: (f64, f64), q: f64) -> f64 {
        let (a, b) = p;
        a * b.sin() + q * a
    }

    /// Written for `f32`.
    #[differentiable]
    pub fn tanh_weighted_f32(x: &[f32]) -> f32 {
        let mut s = 0.0f32;
        for &v in x {
            s += v.tanh() * v;
        }
        s
    }

    /// `order = 3` of a function of a slice: its Hessian.
    #[differentiable(order = 3)]
    pub fn slice_order3(x: &[f64]) -> f64 {
        x[0] * x[1].exp() + x[0].powi(3)
    }

    /// A differentiable `fn` item nested in the body.
    #[differentiable(order = 2)]
    pub fn nested_item(x: &[f64]) -> f64 {
        #[differentiable]
        fn cube(v: f64) -> f64 {
            v * v * v
        }
        let mut s = 0.0;
        for &v in x {
            s += cube(v);
        }
        s
    }

    /// `out[i] += x[i]^2`: the output's incoming value read.
    #[differentiable]
    pub fn add_squares_into(x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] += x[i] * x[i];
        }
    }

    /// A copy modified, then accumulated into by calls, once with a copy of itself as the input.
    #[differentiable(order = 2)]
    pub fn copy_modify_call(x: &[f64]) -> f64 {
        let mut y = x.to_vec();
        y[0] = y[0] * 3.0;
        add_squares_into(x, &mut y);
        let z = y.clone();
        add_squares_into(&z, &mut y);
        y[0] + y[1] * y[2]
    }

    /// A local matrix written entry by entry, a row copied out of it.
    #[differentiable(order = 2)]
    pub fn matrix_row_copy(x: &[f64]) -> f64 {
        let mut m = vec![vec![0.0; 2]; 2];
        m[0][0] = x[0];
        m[1][1] = x[1];
        m[0][1] = x[0] * x[1];
        let r = m[0].clone();
        r[0] + r[1] + m[1][1] * m[0][1]
    }
}

// ---------------------------------------------------------------------------------------------------
// Parameter forms: references to nested arrays, parameters by value, windows and chunks, constants
// and closures, arrays chosen by `match` and returned early, nested parameter structs.
// ---------------------------------------------------------------------------------------------------

pub mod forms {
    use autodiff::{differentiable, Differentiable};

    #[differentiable(order = 2)]
    pub fn ref_nested(m: &[[f64; 3]; 2]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 {
            for j in 0..3 {
                s += m[i][j] * m[1 - i][2 - j];
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn by_value_params(a: Vec<f64>, m: Vec<Vec<f64>>, r: &Vec<f64>) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * m[i][0] + r[i] * m[i][1];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn windows_chunks(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for w in x.windows(2) {
            s += (w[1] - w[0]).powi(2);
        }
        for c in x.chunks(3) {
            s += c[0] * c[c.len() - 1];
        }
        s + x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum::<f64>()
    }

    #[differentiable(order = 2)]
    pub fn consts_and_closure(x: &[f64], w: &[f64]) -> f64 {
        const N: usize = 3;
        let mut buf = [0.0; N];
        let f = |i: usize| w[i] * x[i];
        for i in 0..N {
            buf[i] = f(i) + std::f64::consts::E;
        }
        let mut s = 0.0;
        for &b in buf.iter() {
            s += b.ln();
        }
        s
    }

    #[differentiable]
    pub fn pick(x: &[f64], k: usize) -> [f64; 2] {
        match k {
            0 => [x[0], x[1]],
            1 | 2 => [x[1] * x[2], x[0]],
            _ => {
                if x[0] > 0.0 {
                    return [x[0].sqrt(), 1.0];
                }
                [x[2], x[2]]
            }
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner {
        pub a: Vec<f64>,
        pub c: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Outer {
        pub inner: Inner,
        pub scale: f64,
    }

    #[differentiable(order = 2, wrt(p))]
    pub fn inner_energy(p: &Inner, x: &[f64]) -> f64 {
        let mut s = p.c;
        for i in 0..x.len() {
            s += (p.a[i] * x[i]).sin();
        }
        s * s
    }

    impl Outer {
        #[differentiable(order = 2, wrt(self))]
        pub fn energy(&self, x: &[f64]) -> f64 {
            self.scale * inner_energy(&self.inner, x) + self.inner.c
        }
    }

    #[differentiable(order = 2)]
    pub fn zip_bare(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for (a, b) in x.iter().zip(y) {
            s += a * b * b;
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Zygote's mutation tests in spirit: entries perturbed and restored, tuple swaps, a reduction that
// halves its own buffer, a bisection whose result carries no derivative.
// ---------------------------------------------------------------------------------------------------

pub mod mutation {
    use autodiff::differentiable;

    /// A finite-difference gradient norm computed inside differentiable code: entries perturbed and
    /// restored in place.
    #[differentiable(order = 2)]
    pub fn fd_inside(x: &[f64]) -> f64 {
        let mut y = x.to_vec();
        let h = 1e-3;
        let mut s = 0.0;
        for i in 0..y.len() {
            let old = y[i];
            y[i] = old + h;
            let mut fp = 0.0;
            for j in 0..y.len() {
                fp += y[j].sin() * y[j];
            }
            y[i] = old - h;
            let mut fm = 0.0;
            for j in 0..y.len() {
                fm += y[j].sin() * y[j];
            }
            y[i] = old;
            let d = (fp - fm) / (2.0 * h);
            s += d * d;
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn tuple_swaps(x: f64, y: f64) -> f64 {
        let (mut a, mut b) = (x, y);
        for _ in 0..3 {
            let (na, nb) = (b, a * b + 0.5);
            a = na;
            b = nb;
        }
        a + 2.0 * b
    }

    #[differentiable(order = 2)]
    pub fn cyclic_reduction(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let mut n = v.len();
        while n > 1 {
            let half = (n + 1) / 2;
            for i in 0..n / 2 {
                v[i] = v[2 * i] * v[2 * i + 1] + v[2 * i].cos();
            }
            if n % 2 == 1 {
                v[half - 1] = v[n - 1];
            }
            n = half;
        }
        v[0]
    }

    #[differentiable(order = 2)]
    pub fn bisect_then_use(a: f64) -> f64 {
        // The root of t^3 - 2 found by bisection (its value does not depend on `a`'s derivative:
        // comparisons only), then used with `a`.
        let (mut lo, mut hi) = (0.0, 2.0);
        while hi - lo > 1e-12 {
            let mid = 0.5 * (lo + hi);
            if mid * mid * mid > 2.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        a * lo + a * a
    }
}

// ---------------------------------------------------------------------------------------------------
// Parameter structs and methods (Flux's `Dense`, `GRUCell`, `LayerNorm` as structs).
// ---------------------------------------------------------------------------------------------------

/// A dense layer `tanh(W x + b)` with `W` stored flat by rows (a `Vec<Vec<f64>>` field cannot be
/// indexed twice in a body: `self.w[i][j]` is a spanned error saying to store it flat, as here, or to take
/// the matrix as a parameter).
#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
    #[no_grad]
    pub outputs: usize,
}

impl Dense {
    /// The layer's output into an output parameter.
    #[differentiable(wrt(self, x))]
    pub fn forward_into(&self, x: &[f64], y: &mut [f64]) {
        for i in 0..self.outputs {
            let mut z = self.b[i];
            for j in 0..x.len() {
                z += self.w[i * x.len() + j] * x[j];
            }
            y[i] = z.tanh();
        }
    }

    /// Half the squared distance of the output to `target`, through `forward_into` on a local buffer.
    #[differentiable(wrt(self))]
    pub fn loss(&self, x: &[f64], target: &[f64]) -> f64 {
        let mut y = vec![0.0; self.outputs];
        self.forward_into(x, &mut y);
        let mut s = 0.0;
        for i in 0..y.len() {
            s += 0.5 * (y[i] - target[i]) * (y[i] - target[i]);
        }
        s
    }

    /// The same loss in the input: a constant `self`.
    #[differentiable(order = 2, wrt(x))]
    pub fn input_energy(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.outputs {
            let mut z = self.b[i];
            for j in 0..x.len() {
                z += self.w[i * x.len() + j] * x[j];
            }
            s += z.tanh().powi(2);
        }
        s
    }
}

/// A GRU cell with scalar input, weights per gate as vectors (Flux's `GRUCell` for one feature).
#[derive(Clone, Debug, Differentiable)]
pub struct Gru {
    pub wz: Vec<f64>,
    pub uz: Vec<f64>,
    pub wr: Vec<f64>,
    pub ur: Vec<f64>,
    pub wh: Vec<f64>,
    pub uh: Vec<f64>,
    pub bias: [f64; 3],
}

impl Gru {
    /// One step with a diagonal recurrence, for each unit.
    #[differentiable(wrt(self, h))]
    pub fn step(&self, x: f64, h: f64, unit: usize) -> f64 {
        let z = 1.0 / (1.0 + (-(self.wz[unit] * x + self.uz[unit] * h + self.bias[0])).exp());
        let r = 1.0 / (1.0 + (-(self.wr[unit] * x + self.ur[unit] * h + self.bias[1])).exp());
        let c = (self.wh[unit] * x + self.uh[unit] * (r * h) + self.bias[2]).tanh();
        (1.0 - z) * c + z * h
    }

    /// The GRU run over a sequence, each unit carried through the loop; the states summed.
    #[differentiable(order = 2, wrt(self))]
    pub fn run(&self, xs: &[f64]) -> f64 {
        let mut total = 0.0;
        for unit in 0..self.wz.len() {
            let mut h = 0.0;
            for &x in xs {
                h = self.step(x, h, unit);
            }
            total += h * (unit as f64 + 1.0);
        }
        total
    }
}

/// A layer whose `#[no_grad]` fields are a count and a flag, accumulated into an output parameter
/// read before written, called from `order = 2` methods.
#[derive(Clone, Debug, Differentiable)]
pub struct LeakyNet {
    pub w: Vec<f64>,
    pub b: [f64; 2],
    #[no_grad]
    pub n: usize,
    #[no_grad]
    pub relu: bool,
}

impl LeakyNet {
    /// `acc[i] += tanh(leaky(w_i . x + b))`.
    #[differentiable(wrt(self, x))]
    pub fn accumulate(&self, x: &[f64], acc: &mut [f64]) {
        for i in 0..self.n {
            let mut z = self.b[i % 2];
            for j in 0..x.len() {
                z += self.w[i * x.len() + j] * x[j];
            }
            if self.relu && z < 0.0 {
                z = 0.01 * z;
            }
            acc[i] += z.tanh();
        }
    }

    /// Accumulated over a batch of rows into a local buffer.
    #[differentiable(order = 2, wrt(self))]
    pub fn loss(&self, xs: &[Vec<f64>]) -> f64 {
        let n = self.n;
        let mut acc = vec![0.0; n];
        for k in 0..xs.len() {
            self.accumulate(&xs[k], &mut acc);
        }
        let mut s = 0.0;
        for i in 0..n {
            s += acc[i] * acc[i];
        }
        s
    }

    /// The loss called twice (a sub-slice of the rows, `&xs[..1]`, is a spanned error by design).
    #[differentiable(order = 2, wrt(self))]
    pub fn loss_twice(&self, xs: &[Vec<f64>]) -> f64 {
        self.loss(xs) * 0.5 + self.loss(xs).sin()
    }
}

/// `LayerNorm` with an affine map, then a fixed readout.
#[derive(Clone, Debug, Differentiable)]
pub struct LayerNorm {
    pub gamma: Vec<f64>,
    pub beta: Vec<f64>,
    #[no_grad]
    pub eps: f64,
}

/// The layer's readout as a free function of the struct.
#[differentiable(order = 2, wrt(ln, x))]
pub fn layer_norm_readout(ln: &LayerNorm, x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mu = x.iter().sum::<f64>() / n;
    let mut var = 0.0;
    for &v in x {
        var += (v - mu) * (v - mu);
    }
    let sd = (var / n + ln.eps).sqrt();
    let mut s = 0.0;
    for i in 0..x.len() {
        let y = ln.gamma[i] * (x[i] - mu) / sd + ln.beta[i];
        s += (i as f64 + 1.0) * y.sin();
    }
    s
}

// ---------------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------------

/// A probe of a function of one `&[Vec<f64>]` with `c` columns, seen flat (row-major).
macro_rules! matrix {
    ($name:expr, $c:expr, $f:path, $g:path, $j:path, $gi:path, $h:path) => {{
        let c = $c;
        Probe::new($name, move |x| $f(&rows(x, c)))
            .grad(move |x| {
                let (v, g) = $g(&rows(x, c));
                (v, g.concat())
            })
            .jvp(move |x, t| $j(&rows(x, c), rows(t, c)))
            .grad_into(move |x| {
                let mut g = rows(&vec![GARBAGE; x.len()], c);
                let v = $gi(&rows(x, c), &mut g);
                (v, g.concat())
            })
            .hessian(move |x| {
                let (v, g, h) = $h(&rows(x, c));
                (v, g.concat(), h)
            })
    }};
}

/// A probe of a function of one `[[f64; N]; N]`, seen flat (row-major).
macro_rules! nested {
    ($name:expr, $n:literal, $f:path, $g:path, $j:path, $gi:path, $h:path) => {{
        Probe::new($name, move |x| $f(square::<$n>(x)))
            .grad(move |x| {
                let (v, g) = $g(square::<$n>(x));
                (v, g.concat())
            })
            .jvp(move |x, t| $j(square::<$n>(x), square::<$n>(t)))
            .grad_into(move |x| {
                let mut g = [[GARBAGE; $n]; $n];
                let v = $gi(square::<$n>(x), &mut g);
                (v, g.concat())
            })
            .hessian(move |x| {
                let (v, g, h) = $h(square::<$n>(x));
                (v, g.concat(), h)
            })
    }};
}

/// `check_vector` of a function of one slice with a `Vec` result, with its `f_jacobian`.
#[track_caller]
fn vec_of_slice(
    name: &str,
    sample: impl Fn(&mut Lcg) -> Flat,
    f: fn(&[f64]) -> Vec<f64>,
    vjp: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>),
    jvp: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>),
    jac: fn(&[f64]) -> Vec<Vec<f64>>,
) {
    check_vector(
        name,
        POINTS,
        sample,
        &|x| f(x),
        &|x, c| vjp(x, c.to_vec()),
        &|x, t| jvp(x, t.to_vec()),
        Some(&|x| jac(x)),
    );
}

/// The cofactor matrix of a 3x3 matrix (the gradient of its determinant), flat.
fn cofactors3(m: &[f64]) -> Flat {
    let a = |i: usize, j: usize| m[(i % 3) * 3 + (j % 3)];
    let mut c = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            c[i * 3 + j] = a(i + 1, j + 1) * a(i + 2, j + 2) - a(i + 1, j + 2) * a(i + 2, j + 1);
        }
    }
    c
}

fn softmax(z: &[f64]) -> Flat {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Flat = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

#[test]
fn difftests_num2num() {
    use difftests as dt;
    let ln1031 = 10.31_f64.ln();
    one(
        "num2num_1",
        dt::num2num_1,
        dt::num2num_1_grad,
        dt::num2num_1_jvp,
        dt::num2num_1_grad_into,
    )
    .hessian(hess1(dt::num2num_1_hessian, dt::num2num_1_derivatives))
    .analytic(|x| {
        let t = x[0].tan();
        vec![2.0 * t * (1.0 + t * t)]
    })
    .run(POINTS, range(1, -1.2, 1.2));
    check_third("num2num_1", dt::num2num_1_derivatives, POINTS, -1.0, 1.0);
    one(
        "num2num_2",
        dt::num2num_2,
        dt::num2num_2_grad,
        dt::num2num_2_jvp,
        dt::num2num_2_grad_into,
    )
    .hessian(hess1(dt::num2num_2_hessian, dt::num2num_2_derivatives))
    .analytic(|x| vec![2.0 + 1.5 * x[0].sqrt()])
    .run(POINTS, range(1, 0.1, 3.0));
    check_third("num2num_2", dt::num2num_2_derivatives, POINTS, 0.2, 3.0);
    one(
        "num2num_3",
        dt::num2num_3,
        dt::num2num_3_grad,
        dt::num2num_3_jvp,
        dt::num2num_3_grad_into,
    )
    .hessian(hess1(dt::num2num_3_hessian, dt::num2num_3_derivatives))
    .analytic(move |x| vec![2.0 * ln1031 * 10.31_f64.powf(2.0 * x[0]) - 1.0])
    .run(POINTS, range(1, -1.0, 1.0));
    check_third("num2num_3", dt::num2num_3_derivatives, POINTS, -1.0, 1.0);
    one(
        "num2num_4",
        dt::num2num_4,
        dt::num2num_4_grad,
        dt::num2num_4_jvp,
        dt::num2num_4_grad_into,
    )
    .hessian(hess1(dt::num2num_4_hessian, dt::num2num_4_derivatives))
    .analytic(|_| vec![0.0])
    .run(10, range(1, -3.0, 3.0));
    one(
        "num2num_5",
        dt::num2num_5,
        dt::num2num_5_grad,
        dt::num2num_5_jvp,
        dt::num2num_5_grad_into,
    )
    .hessian(hess1(dt::num2num_5_hessian, dt::num2num_5_derivatives))
    .analytic(|x| {
        let s = sigmoid(x[0]);
        vec![s * (1.0 - s)]
    })
    .run(POINTS, range(1, -5.0, 5.0));
    check_third("num2num_5", dt::num2num_5_derivatives, POINTS, -4.0, 4.0);
}

#[test]
fn difftests_num2arr() {
    use difftests as dt;
    let flat = |a: [f64; 8]| a.to_vec();
    let arr = |c: &[f64]| -> [f64; 8] { c.try_into().unwrap() };
    check_vector(
        "num2arr_1",
        POINTS,
        range(1, 0.1, 1.2),
        &|x| flat(dt::num2arr_1(x[0])),
        &|x, c| {
            let (v, g) = dt::num2arr_1_vjp(x[0], arr(c));
            (flat(v), vec![g])
        },
        &|x, t| {
            let (v, d) = dt::num2arr_1_jvp(x[0], t[0]);
            (flat(v), flat(d))
        },
        Some(&|x| dt::num2arr_1_jacobian(x[0])),
    );
    // The in-place twin. `y` is written whole (`fill!(y, 0)`, a loop over `0..y.len()`) before it is
    // read, so its incoming value is no input (API.md: "an input only if the body reads it before writing
    // it"): a function of `x` alone, whatever `y` holds when called (NaN here, which would show any use).
    let n = 5;
    let incoming = |_: f64| vec![GARBAGE; n];
    check_vector(
        "num2arr_1_inplace",
        POINTS,
        range(1, -2.0, 2.0),
        &|x| {
            let mut y = incoming(x[0]);
            dt::num2arr_1_inplace(&mut y, x[0]);
            y
        },
        &|x, c| {
            let mut y = incoming(x[0]);
            let gx: f64 = dt::num2arr_1_inplace_vjp(&mut y, x[0], c);
            (y, vec![gx])
        },
        &|x, t| {
            let mut y = incoming(x[0]);
            let mut d = vec![GARBAGE; n];
            dt::num2arr_1_inplace_jvp(&mut y, x[0], t[0], &mut d);
            (y, d)
        },
        Some(&|x| dt::num2arr_1_inplace_jacobian(&mut incoming(x[0]), x[0])),
    );
    // y[i] = (sin x + y[i-1])^2 from y[0] = 0: y[1] = sin^2 x, y[2] = (sin x + sin^2 x)^2.
    let x = 0.7_f64;
    let s = x.sin();
    let mut y = vec![0.0; 3];
    let g = dt::num2arr_1_inplace_vjp(&mut y, x, &[0.0, 0.0, 1.0]);
    let by_hand = 2.0 * (s + s * s) * (1.0 + 2.0 * s) * x.cos();
    assert_near(g, by_hand, 1e-12, 0.0, "num2arr_1_inplace: d y[2] / dx");
}

#[test]
fn difftests_vec2num() {
    use difftests as dt;
    slice2!(
        dt::vec2num_1,
        vec2num_1_grad,
        vec2num_1_jvp,
        vec2num_1_grad_into,
        vec2num_1_hessian
    )
    .analytic(|x| {
        let e = x[0].exp();
        vec![
            e / x[4],
            0.0,
            x[3] / (x[2] * x[4]),
            x[2].ln() / x[4],
            -(e + x[2].ln() * x[3]) / (x[4] * x[4]),
        ]
    })
    .run(POINTS, range(5, 0.5, 2.0));
    slice2!(
        dt::vec2num_2,
        vec2num_2_grad,
        vec2num_2_jvp,
        vec2num_2_grad_into,
        vec2num_2_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        g[0] = x[1] + x[0].cos();
        g[1] = x[0];
        g
    })
    .run(POINTS, range(5, -2.0, 2.0));
    // `norm(x' .* x)` is `sum(x.^2)`.
    slice2!(
        dt::vec2num_3,
        vec2num_3_grad,
        vec2num_3_jvp,
        vec2num_3_grad_into,
        vec2num_3_hessian
    )
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        dt::vec2num_4,
        vec2num_4_grad,
        vec2num_4_jvp,
        vec2num_4_grad_into,
        vec2num_4_hessian
    )
    .analytic(|x| vec![0.0; x.len()])
    .run(10, range(5, -2.0, 2.0));
    slice2!(
        dt::vec2num_5,
        vec2num_5_grad,
        vec2num_5_jvp,
        vec2num_5_grad_into,
        vec2num_5_hessian
    )
    .analytic(|x| x.iter().map(|v| -3.0 * v * v).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        dt::vec2num_6,
        vec2num_6_grad,
        vec2num_6_jvp,
        vec2num_6_grad_into,
        vec2num_6_hessian
    )
    .analytic(|x| x.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect())
    .run(POINTS, away_from(5, -2.0, 2.0, 10.0, 0.0));
    slice2!(
        dt::vec2num_7,
        vec2num_7_grad,
        vec2num_7_jvp,
        vec2num_7_grad_into,
        vec2num_7_hessian
    )
    .analytic(|x| {
        let s: f64 = x.iter().sum();
        let mut g = vec![x[0]; x.len()];
        g[0] = s + x[0];
        g
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        dt::first,
        first_grad,
        first_jvp,
        first_grad_into,
        first_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        g[0] = 1.0;
        g
    })
    .run(10, range(5, -2.0, 2.0));
    slice2!(
        dt::self_weighted_logit,
        self_weighted_logit_grad,
        self_weighted_logit_jvp,
        self_weighted_logit_grad_into,
        self_weighted_logit_hessian
    )
    .analytic(|x| {
        let s = sigmoid(dot(x, x));
        x.iter().map(|v| s * (1.0 - s) * 2.0 * v).collect()
    })
    .run(POINTS, range(5, -1.0, 1.0));
    slice2!(
        dt::ackley,
        ackley_grad,
        ackley_jvp,
        ackley_grad_into,
        ackley_hessian
    )
    .analytic(|x| {
        let (a, b, c) = (20.0, -0.2, 2.0 * std::f64::consts::PI);
        let n = x.len() as f64;
        let r = (dot(x, x) / n).sqrt();
        let cs: f64 = x.iter().map(|v| (c * v).cos()).sum();
        x.iter()
            .map(|v| -a * (b * r).exp() * b * v / (n * r) + (cs / n).exp() * c * (c * v).sin() / n)
            .collect()
    })
    .run(POINTS, range(5, -1.5, 1.5));
}

/// The gradient of the classic Rosenbrock function.
fn rosenbrock_formula(x: &[f64]) -> Flat {
    let mut g = vec![0.0; x.len()];
    for k in 0..x.len() - 1 {
        let r = x[k + 1] - x[k] * x[k];
        g[k] += -2.0 * (1.0 - x[k]) - 400.0 * r * x[k];
        g[k + 1] += 200.0 * r;
    }
    g
}

#[test]
fn difftests_rosenbrocks() {
    use difftests as dt;
    slice2!(
        dt::rosenbrock_1,
        rosenbrock_1_grad,
        rosenbrock_1_jvp,
        rosenbrock_1_grad_into,
        rosenbrock_1_hessian
    )
    .analytic(rosenbrock_formula)
    .run(POINTS, range(5, -1.5, 1.5));
    slice2!(
        dt::rosenbrock_2,
        rosenbrock_2_grad,
        rosenbrock_2_jvp,
        rosenbrock_2_grad_into,
        rosenbrock_2_hessian
    )
    .analytic(|x| {
        let (a, b) = (x[0], 100.0 * x[0]);
        let mut g = vec![0.0; x.len()];
        for k in 0..x.len() - 1 {
            let r = x[k + 1] - x[k] * x[k];
            g[0] += 2.0 * (a - x[k]) + 100.0 * r * r;
            g[k] += -2.0 * (a - x[k]) - 4.0 * b * r * x[k];
            g[k + 1] += 2.0 * b * r;
        }
        g
    })
    .run(POINTS, range(5, -1.5, 1.5));
    slice2!(
        dt::rosenbrock_3,
        rosenbrock_3_grad,
        rosenbrock_3_jvp,
        rosenbrock_3_grad_into,
        rosenbrock_3_hessian
    )
    .analytic(rosenbrock_formula)
    .run(POINTS, range(5, -1.5, 1.5));
    slice2!(
        dt::rosenbrock_4,
        rosenbrock_4_grad,
        rosenbrock_4_jvp,
        rosenbrock_4_grad_into,
        rosenbrock_4_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for k in 0..x.len() - 1 {
            let t2 = x[k + 1] + x[k] * x[k];
            g[k] += 2.0 * (1.0 + x[k]) + 400.0 * t2 * x[k];
            g[k + 1] += 200.0 * t2;
        }
        g
    })
    .run(POINTS, range(5, -1.5, 1.5));
    slice2!(
        kernels::rosenbrock_generic,
        rosenbrock_generic_grad,
        rosenbrock_generic_jvp,
        rosenbrock_generic_grad_into,
        rosenbrock_generic_hessian
    )
    .analytic(rosenbrock_formula)
    .run(POINTS, range(6, -1.5, 1.5));
    // The generic one on `f32` agrees with `f64` to `f32`'s precision.
    let x = [0.3_f32, -0.7, 1.1, 0.4];
    let (v32, g32) = kernels::rosenbrock_generic_grad(&x);
    let x64: Flat = x.iter().map(|&v| v as f64).collect();
    let (v64, g64) = kernels::rosenbrock_generic_grad(&x64);
    assert_near(v32 as f64, v64, 1e-5, 0.0, "rosenbrock on f32");
    for i in 0..4 {
        assert_near(
            g32[i] as f64,
            g64[i],
            1e-5,
            norm(&g64),
            "rosenbrock gradient on f32",
        );
    }
}

#[test]
fn difftests_mat2num() {
    use difftests as dt;
    nested!(
        "det3",
        3,
        dt::det3,
        dt::det3_grad,
        dt::det3_jvp,
        dt::det3_grad_into,
        dt::det3_hessian
    )
    .analytic(cofactors3)
    .run(POINTS, range(9, -2.0, 2.0));
    // Away from singular `x * x`: a diagonally dominant 2x2.
    let dominant = |r: &mut Lcg| {
        let mut x = r.vec(4, -0.5, 0.5);
        x[0] += 2.0;
        x[3] += 1.5;
        x
    };
    nested!(
        "mat2num_1",
        2,
        dt::mat2num_1,
        dt::mat2num_1_grad,
        dt::mat2num_1_jvp,
        dt::mat2num_1_grad_into,
        dt::mat2num_1_hessian
    )
    .run(POINTS, dominant);
    matrix!(
        "mat2num_2",
        3,
        dt::mat2num_2,
        dt::mat2num_2_grad,
        dt::mat2num_2_jvp,
        dt::mat2num_2_grad_into,
        dt::mat2num_2_hessian
    )
    .analytic(|x| x.iter().map(|v| 2.0 * v / (1.0 + v * v)).collect())
    .run(POINTS, range(9, -2.0, 2.0));
    matrix!(
        "mat2num_3",
        3,
        dt::mat2num_3,
        dt::mat2num_3_grad,
        dt::mat2num_3_jvp,
        dt::mat2num_3_grad_into,
        dt::mat2num_3_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| 0.5 * (v.signum() + 2.0 * v) / (2.0 * (v.abs() + v * v).sqrt()))
            .collect()
    })
    .run(POINTS, away_from(9, -2.0, 2.0, 10.0, 0.0));
    matrix!(
        "mat2num_4",
        3,
        dt::mat2num_4,
        dt::mat2num_4_grad,
        dt::mat2num_4_jvp,
        dt::mat2num_4_grad_into,
        dt::mat2num_4_hessian
    )
    .analytic(|x| {
        let n = 3;
        let m = |i: usize, j: usize| x[i * n + j];
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..n {
                let row_b: f64 = (0..n).map(|j| m(b, j)).sum();
                let col_sin: f64 = (0..n).map(|i| m(i, a).sin()).sum();
                g[a * n + b] = (m(a, b).cos() * row_b + col_sin) / n as f64;
            }
        }
        g
    })
    .run(POINTS, range(9, -2.0, 2.0));
    matrix!(
        "softmax_rows",
        4,
        dt::softmax_rows,
        dt::softmax_rows_grad,
        dt::softmax_rows_jvp,
        dt::softmax_rows_grad_into,
        dt::softmax_rows_hessian
    )
    .analytic(|x| vec![0.0; x.len()])
    .run(POINTS, distinct(8, -3.0, 3.0, 0.01));
    matrix!(
        "softmax_rows_weighted",
        4,
        dt::softmax_rows_weighted,
        dt::softmax_rows_weighted_grad,
        dt::softmax_rows_weighted_jvp,
        dt::softmax_rows_weighted_grad_into,
        dt::softmax_rows_weighted_hessian
    )
    .analytic(|x| {
        let mut g = Vec::new();
        for row in x.chunks(4) {
            let p = softmax(row);
            let mean: f64 = (0..4).map(|j| (j as f64 + 1.0) * p[j]).sum();
            g.extend((0..4).map(|k| p[k] * ((k as f64 + 1.0) - mean)));
        }
        g
    })
    .run(POINTS, distinct(8, -3.0, 3.0, 0.01));
    // `neural_step(x1, w1, w2)`: all three active, `w1` a 2x3 matrix.
    Probe::new("neural_step", |x| {
        dt::neural_step(&x[..3], &rows(&x[3..9], 3), &x[9..])
    })
    .grad(|x| {
        let (v, (a, b, c)) = dt::neural_step_grad(&x[..3], &rows(&x[3..9], 3), &x[9..]);
        (v, [a, b.concat(), c].concat())
    })
    .jvp(|x, t| {
        dt::neural_step_jvp(
            &x[..3],
            &rows(&x[3..9], 3),
            &x[9..],
            (t[..3].to_vec(), rows(&t[3..9], 3), t[9..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (a, b, c), h) = dt::neural_step_hessian(&x[..3], &rows(&x[3..9], 3), &x[9..]);
        (v, [a, b.concat(), c].concat(), h)
    })
    .analytic(|x| {
        let (x1, w2) = (&x[..3], &x[9..]);
        let z: Flat = (0..2).map(|i| dot(&x[3 + 3 * i..6 + 3 * i], x1)).collect();
        let d: f64 = (0..2).map(|i| w2[i] * (1.0 + z[i].exp()).ln()).sum();
        let s = sigmoid(d);
        let ds = s * (1.0 - s);
        let mut g = vec![0.0; 11];
        for i in 0..2 {
            let sp = sigmoid(z[i]);
            for j in 0..3 {
                g[j] += ds * w2[i] * sp * x[3 + 3 * i + j];
                g[3 + 3 * i + j] = ds * w2[i] * sp * x1[j];
            }
            g[9 + i] = ds * (1.0 + z[i].exp()).ln();
        }
        g
    })
    .run(POINTS, range(11, -1.5, 1.5));
}

/// `check_vector` of an in-place `f!(y, x)` whose incoming `y` is read: a function of `(y, x)`, `y` of
/// length `m`, with its `f_vjp`, `f_jvp` and `f_jacobian`.
macro_rules! inplace {
    ($name:expr, $m:expr, $sample:expr, $f:path, $vjp:path, $jvp:path, $jac:path) => {{
        let m = $m;
        check_vector(
            $name,
            POINTS,
            $sample,
            &|x| {
                let mut y = x[..m].to_vec();
                $f(&mut y, &x[m..]);
                y
            },
            &|x, c| {
                let mut y = x[..m].to_vec();
                let (gy, gx) = $vjp(&mut y, &x[m..], c);
                (y, [gy, gx].concat())
            },
            &|x, t| {
                let mut y = x[..m].to_vec();
                let mut d = vec![GARBAGE; m];
                $jvp(&mut y, &x[m..], (t[..m].to_vec(), t[m..].to_vec()), &mut d);
                (y, d)
            },
            Some(&|x| $jac(&mut x[..m].to_vec(), &x[m..])),
        );
    }};
}

#[test]
fn difftests_inplace_and_array_to_array() {
    use difftests as dt;
    inplace!(
        "chebyquad!",
        4,
        range(9, -1.0, 1.0),
        dt::chebyquad_inplace,
        dt::chebyquad_inplace_vjp,
        dt::chebyquad_inplace_jvp,
        dt::chebyquad_inplace_jacobian
    );
    inplace!(
        "brown_almost_linear!",
        5,
        range(10, -1.5, 1.5),
        dt::brown_almost_linear_inplace,
        dt::brown_almost_linear_inplace_vjp,
        dt::brown_almost_linear_inplace_jvp,
        dt::brown_almost_linear_inplace_jacobian
    );
    inplace!(
        "trigonometric!",
        4,
        range(8, -1.5, 1.5),
        dt::trigonometric_inplace,
        dt::trigonometric_inplace_vjp,
        dt::trigonometric_inplace_jvp,
        dt::trigonometric_inplace_jacobian
    );
    inplace!(
        "mutation_test_1!",
        3,
        range(6, -1.5, 1.5),
        dt::mutation_test_1_inplace,
        dt::mutation_test_1_inplace_vjp,
        dt::mutation_test_1_inplace_jvp,
        dt::mutation_test_1_inplace_jacobian
    );
    inplace!(
        "mutation_test_2!",
        2,
        range(4, -1.5, 1.5),
        dt::mutation_test_2_inplace,
        dt::mutation_test_2_inplace_vjp,
        dt::mutation_test_2_inplace_jvp,
        dt::mutation_test_2_inplace_jacobian
    );
    // mutation_test_1!: y' = (x0 x1, y1 x2, x0 x1 + y1 x2 + y2): its Jacobian by hand, columns
    // (y0, y1, y2, x0, x1, x2).
    let (y, x) = ([0.3, -0.8, 1.1], [0.5, 1.7, -0.4]);
    let j = dt::mutation_test_1_inplace_jacobian(&mut y.to_vec(), &x);
    let expected = [
        [0.0, 0.0, 0.0, x[1], x[0], 0.0],
        [0.0, x[2], 0.0, 0.0, 0.0, y[1]],
        [0.0, x[2], 1.0, x[1], x[0], y[1]],
    ];
    for i in 0..3 {
        assert_vec_near(&j[i], &expected[i], 1e-15, "mutation_test_1! Jacobian");
    }
    vec_of_slice(
        "chebyquad",
        range(5, -1.0, 1.0),
        dt::chebyquad,
        dt::chebyquad_vjp,
        dt::chebyquad_jvp,
        dt::chebyquad_jacobian,
    );
    vec_of_slice(
        "brown_almost_linear",
        range(5, -1.5, 1.5),
        dt::brown_almost_linear,
        dt::brown_almost_linear_vjp,
        dt::brown_almost_linear_jvp,
        dt::brown_almost_linear_jacobian,
    );
    vec_of_slice(
        "trigonometric",
        range(5, -1.5, 1.5),
        dt::trigonometric,
        dt::trigonometric_vjp,
        dt::trigonometric_jvp,
        dt::trigonometric_jacobian,
    );
    vec_of_slice(
        "mutation_test_1",
        range(4, -1.5, 1.5),
        dt::mutation_test_1,
        dt::mutation_test_1_vjp,
        dt::mutation_test_1_jvp,
        dt::mutation_test_1_jacobian,
    );
    vec_of_slice(
        "mutation_test_2",
        range(4, -1.5, 1.5),
        dt::mutation_test_2,
        dt::mutation_test_2_vjp,
        dt::mutation_test_2_jvp,
        dt::mutation_test_2_jacobian,
    );
    // brown_almost_linear's last row is the product's gradient.
    let x = [0.5, -1.2, 0.8, 1.5, -0.3];
    let j = dt::brown_almost_linear_jacobian(&x);
    let p: f64 = x.iter().product();
    let last: Flat = x.iter().map(|v| p / v).collect();
    assert_vec_near(&j[4], &last, 1e-13, "brown_almost_linear: last row");
    // arr2arr_2 of a 2x3 matrix.
    check_vector(
        "arr2arr_2",
        POINTS,
        range(6, -2.0, 2.0),
        &|x| dt::arr2arr_2(&rows(x, 3)),
        &|x, c| {
            let (v, g) = dt::arr2arr_2_vjp(&rows(x, 3), c.to_vec());
            (v, g.concat())
        },
        &|x, t| dt::arr2arr_2_jvp(&rows(x, 3), rows(t, 3)),
        Some(&|x| dt::arr2arr_2_jacobian(&rows(x, 3))),
    );
}

#[test]
fn difftests_binary_matrix_ops() {
    use difftests as dt;
    let weight = |i: usize, j: usize| 1.0 + (i + 2 * j) as f64 * 0.25;
    for op in 0..6 {
        let name = format!("broadcast_op {op}");
        let f = move |x: &[f64]| dt::broadcast_op(&rows(&x[..6], 3), &rows(&x[6..], 3), op);
        Probe::new(&name, f)
            .grad(move |x| {
                let (v, (a, b)) = dt::broadcast_op_grad(&rows(&x[..6], 3), &rows(&x[6..], 3), op);
                (v, [a.concat(), b.concat()].concat())
            })
            .jvp(move |x, t| {
                dt::broadcast_op_jvp(
                    &rows(&x[..6], 3),
                    &rows(&x[6..], 3),
                    op,
                    (rows(&t[..6], 3), rows(&t[6..], 3)),
                )
            })
            .hessian(move |x| {
                let (v, (a, b), h) =
                    dt::broadcast_op_hessian(&rows(&x[..6], 3), &rows(&x[6..], 3), op);
                (v, [a.concat(), b.concat()].concat(), h)
            })
            .analytic(move |x| {
                let mut g = vec![0.0; 12];
                for k in 0..6 {
                    let w = weight(k / 3, k % 3);
                    let (p, q) = (x[k], x[6 + k]);
                    let (dp, dq) = match op {
                        0 => (1.0, 1.0),
                        1 => (1.0, -1.0),
                        2 => (q, p),
                        3 => (1.0 / q, -p / (q * q)),
                        4 => (-q / (p * p), 1.0 / p),
                        _ => (q * p.powf(q - 1.0), p.powf(q) * p.ln()),
                    };
                    g[k] = w * dp;
                    g[6 + k] = w * dq;
                }
                g
            })
            .run(POINTS, range(12, 0.5, 2.0));
    }
    for op in 0..4 {
        let name = format!("matmul_op {op}");
        let f = move |x: &[f64]| dt::matmul_op(square::<3>(&x[..9]), square::<3>(&x[9..]), op);
        Probe::new(&name, f)
            .grad(move |x| {
                let (v, (a, b)) =
                    dt::matmul_op_grad(square::<3>(&x[..9]), square::<3>(&x[9..]), op);
                (v, [a.concat(), b.concat()].concat())
            })
            .jvp(move |x, t| {
                dt::matmul_op_jvp(
                    square::<3>(&x[..9]),
                    square::<3>(&x[9..]),
                    op,
                    (square::<3>(&t[..9]), square::<3>(&t[9..])),
                )
            })
            .grad_into(move |x| {
                let (mut a, mut b) = ([[GARBAGE; 3]; 3], [[GARBAGE; 3]; 3]);
                let v = dt::matmul_op_grad_into(
                    square::<3>(&x[..9]),
                    square::<3>(&x[9..]),
                    op,
                    (&mut a, &mut b),
                );
                (v, [a.concat(), b.concat()].concat())
            })
            .hessian(move |x| {
                let (v, (a, b), h) =
                    dt::matmul_op_hessian(square::<3>(&x[..9]), square::<3>(&x[9..]), op);
                (v, [a.concat(), b.concat()].concat(), h)
            })
            .run(POINTS, range(18, -2.0, 2.0));
    }
}

#[test]
fn zygote_reductions() {
    use zygote as zy;
    slice2!(
        zy::sum_abs2,
        sum_abs2_grad,
        sum_abs2_jvp,
        sum_abs2_grad_into,
        sum_abs2_hessian
    )
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(zy::prod, prod_grad, prod_jvp, prod_grad_into, prod_hessian)
        .analytic(|x| {
            (0..x.len())
                .map(|i| (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product())
                .collect()
        })
        .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        zy::cumsum_sq,
        cumsum_sq_grad,
        cumsum_sq_jvp,
        cumsum_sq_grad_into,
        cumsum_sq_hessian
    )
    .analytic(|x| {
        let c: Flat = x
            .iter()
            .scan(0.0, |a, v| {
                *a += v;
                Some(*a)
            })
            .collect();
        (0..x.len())
            .map(|i| (i..x.len()).map(|k| 2.0 * c[k]).sum())
            .collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        zy::logsumexp,
        logsumexp_grad,
        logsumexp_jvp,
        logsumexp_grad_into,
        logsumexp_hessian
    )
    .analytic(softmax)
    .run(POINTS, distinct(5, -3.0, 3.0, 0.01));
    // Large inputs: the maximum subtracted keeps the value and the gradient finite.
    let big = [700.0, 710.0, 705.0];
    let (v, g) = zy::logsumexp_grad(&big);
    assert!(v.is_finite(), "logsumexp at large inputs: {v}");
    assert_vec_near(&g, &softmax(&big), 1e-14, "logsumexp_grad at large inputs");
    two_slices!(
        "dot",
        4,
        zy::dot,
        zy::dot_grad,
        zy::dot_jvp,
        zy::dot_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = zy::dot_hessian(&x[..4], &x[4..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| [x[4..].to_vec(), x[..4].to_vec()].concat())
    .run(POINTS, range(8, -2.0, 2.0));
    slice2!(
        zy::norm2,
        norm2_grad,
        norm2_jvp,
        norm2_grad_into,
        norm2_hessian
    )
    .analytic(|x| {
        let n = norm(x);
        x.iter().map(|v| v / n).collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        zy::norm1,
        norm1_grad,
        norm1_jvp,
        norm1_grad_into,
        norm1_hessian
    )
    .analytic(|x| x.iter().map(|v| v.signum()).collect())
    .run(POINTS, away_from(5, -2.0, 2.0, 10.0, 0.0));
    slice2!(
        zy::norm3,
        norm3_grad,
        norm3_jvp,
        norm3_grad_into,
        norm3_hessian
    )
    .analytic(|x| {
        let s: f64 = x.iter().map(|v| v.abs().powi(3)).sum();
        x.iter().map(|v| v.abs() * v * s.powf(-2.0 / 3.0)).collect()
    })
    .run(POINTS, away_from(5, -2.0, 2.0, 10.0, 0.0));
    slice2!(
        zy::norm_inf,
        norm_inf_grad,
        norm_inf_jvp,
        norm_inf_grad_into,
        norm_inf_hessian
    )
    .analytic(|x| {
        let k = (0..x.len()).fold(0, |k, i| if x[i].abs() > x[k].abs() { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[k] = x[k].signum();
        g
    })
    .run(POINTS, |r: &mut Lcg| {
        let x = distinct(5, 0.1, 2.0, 0.02)(r);
        x.iter()
            .enumerate()
            .map(|(i, v)| if i % 2 == 0 { -v } else { *v })
            .collect()
    });
    slice2!(
        zy::maximum_sq,
        maximum_sq_grad,
        maximum_sq_jvp,
        maximum_sq_grad_into,
        maximum_sq_hessian
    )
    .analytic(|x| {
        let k = (0..x.len()).fold(0, |k, i| if x[i] > x[k] { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[k] = 2.0 * x[k];
        g
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        zy::minimum_times_sum,
        minimum_times_sum_grad,
        minimum_times_sum_jvp,
        minimum_times_sum_grad_into,
        minimum_times_sum_hessian
    )
    .analytic(|x| {
        let k = (0..x.len()).fold(0, |k, i| if x[i] < x[k] { i } else { k });
        let s: f64 = x.iter().sum();
        let mut g = vec![x[k]; x.len()];
        g[k] += s;
        g
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(zy::mean, mean_grad, mean_jvp, mean_grad_into, mean_hessian)
        .analytic(|x| vec![1.0 / x.len() as f64; x.len()])
        .run(10, range(5, -2.0, 2.0));
    slice2!(zy::var, var_grad, var_jvp, var_grad_into, var_hessian)
        .analytic(|x| {
            let n = x.len() as f64;
            let m = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * (v - m) / (n - 1.0)).collect()
        })
        .run(POINTS, range(5, -2.0, 2.0));
    slice2!(zy::std, std_grad, std_jvp, std_grad_into, std_hessian)
        .analytic(|x| {
            let n = x.len() as f64;
            let m = x.iter().sum::<f64>() / n;
            let s = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            x.iter().map(|v| (v - m) / ((n - 1.0) * s)).collect()
        })
        .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        zy::foldl,
        foldl_grad,
        foldl_jvp,
        foldl_grad_into,
        foldl_hessian
    )
    .analytic(|x| {
        // a_k = a_{k-1} x_k + x_k: d f / d x_k = (a_{k-1} + 1) * prod_{j>k} x_j.
        let mut a = vec![1.0];
        for &v in x {
            let last = a[a.len() - 1];
            a.push(last * v + v);
        }
        (0..x.len())
            .map(|k| (a[k] + 1.0) * x[k + 1..].iter().product::<f64>())
            .collect()
    })
    .run(POINTS, range(5, -1.5, 1.5));
    slice2!(
        zy::accumulate_max,
        accumulate_max_grad,
        accumulate_max_jvp,
        accumulate_max_grad_into,
        accumulate_max_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        let mut k = 0;
        g[0] = 1.0;
        for i in 1..x.len() {
            if x[i] > x[k] {
                k = i;
            }
            g[k] += i as f64 + 1.0;
        }
        g
    })
    .run(POINTS, distinct(6, -2.0, 2.0, 0.01));
}

#[test]
fn zygote_arrays_and_linear_algebra() {
    use zygote as zy;
    vec_of_slice(
        "cumsum",
        range(5, -2.0, 2.0),
        zy::cumsum,
        zy::cumsum_vjp,
        zy::cumsum_jvp,
        zy::cumsum_jacobian,
    );
    vec_of_slice(
        "cumprod",
        range(5, -2.0, 2.0),
        zy::cumprod,
        zy::cumprod_vjp,
        zy::cumprod_jvp,
        zy::cumprod_jacobian,
    );
    vec_of_slice(
        "softmax",
        distinct(5, -3.0, 3.0, 0.01),
        zy::softmax,
        zy::softmax_vjp,
        zy::softmax_jvp,
        zy::softmax_jacobian,
    );
    vec_of_slice(
        "logsoftmax",
        distinct(5, -3.0, 3.0, 0.01),
        zy::logsoftmax,
        zy::logsoftmax_vjp,
        zy::logsoftmax_jvp,
        zy::logsoftmax_jacobian,
    );
    // softmax's Jacobian is diag(p) - p p^T.
    let z = [0.3, -1.2, 2.0, 0.5];
    let j = zy::softmax_jacobian(&z);
    let p = softmax(&z);
    for i in 0..4 {
        let row: Flat = (0..4)
            .map(|k| {
                if i == k {
                    p[i] - p[i] * p[k]
                } else {
                    -p[i] * p[k]
                }
            })
            .collect();
        assert_vec_near(&j[i], &row, 1e-14, "softmax Jacobian");
    }
    vec_of_slice(
        "maxpool",
        distinct(6, -2.0, 2.0, 0.01),
        zy::maxpool,
        zy::maxpool_vjp,
        zy::maxpool_jvp,
        zy::maxpool_jacobian,
    );
    vec_of_slice(
        "meanpool",
        range(6, -2.0, 2.0),
        zy::meanpool,
        zy::meanpool_vjp,
        zy::meanpool_jvp,
        zy::meanpool_jacobian,
    );
    for k in [0usize, 1, 3] {
        let name = format!("circshift {k}");
        check_vector(
            &name,
            10,
            range(5, -2.0, 2.0),
            &|x| zy::circshift(x, k),
            &|x, c| zy::circshift_vjp(x, k, c.to_vec()),
            &|x, t| zy::circshift_jvp(x, k, t.to_vec()),
            Some(&|x| zy::circshift_jacobian(x, k)),
        );
        // The vjp of a permutation is the inverse permutation.
        let c = [1.0, 2.0, 3.0, 4.0, 5.0];
        let (_, g) = zy::circshift_vjp(&c, k, c.to_vec());
        let expected: Flat = (0..5).map(|i| c[(i + k) % 5]).collect();
        assert_eq!(g, expected, "circshift_vjp {k}");
    }
    check_vector(
        "conv1d",
        POINTS,
        range(9, -2.0, 2.0),
        &|x| zy::conv1d(&x[..6], &x[6..]),
        &|x, c| {
            let (v, (a, b)) = zy::conv1d_vjp(&x[..6], &x[6..], c.to_vec());
            (v, [a, b].concat())
        },
        &|x, t| zy::conv1d_jvp(&x[..6], &x[6..], (t[..6].to_vec(), t[6..].to_vec())),
        Some(&|x| zy::conv1d_jacobian(&x[..6], &x[6..])),
    );
    check_vector(
        "dense",
        POINTS,
        range(6 + 3 + 2, -1.5, 1.5),
        &|x| zy::dense(&rows(&x[..6], 3), &x[6..9], &x[9..]),
        &|x, c| {
            let (v, (w, xs, b)) = zy::dense_vjp(&rows(&x[..6], 3), &x[6..9], &x[9..], c.to_vec());
            (v, [w.concat(), xs, b].concat())
        },
        &|x, t| {
            zy::dense_jvp(
                &rows(&x[..6], 3),
                &x[6..9],
                &x[9..],
                (rows(&t[..6], 3), t[6..9].to_vec(), t[9..].to_vec()),
            )
        },
        Some(&|x| zy::dense_jacobian(&rows(&x[..6], 3), &x[6..9], &x[9..])),
    );
    Probe::new("dense_loss", |x| {
        zy::dense_loss(&rows(&x[..6], 3), &x[6..9], &x[9..])
    })
    .grad(|x| {
        let (v, (w, xs, b)) = zy::dense_loss_grad(&rows(&x[..6], 3), &x[6..9], &x[9..]);
        (v, [w.concat(), xs, b].concat())
    })
    .jvp(|x, t| {
        zy::dense_loss_jvp(
            &rows(&x[..6], 3),
            &x[6..9],
            &x[9..],
            (rows(&t[..6], 3), t[6..9].to_vec(), t[9..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (w, xs, b), h) = zy::dense_loss_hessian(&rows(&x[..6], 3), &x[6..9], &x[9..]);
        (v, [w.concat(), xs, b].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 11];
        for i in 0..2 {
            let y = sigmoid(dot(&x[3 * i..3 * i + 3], &x[6..9]) + x[9 + i]);
            let dz = 2.0 * y * y * (1.0 - y);
            for j in 0..3 {
                g[3 * i + j] = dz * x[6 + j];
                g[6 + j] += dz * x[3 * i + j];
            }
            g[9 + i] = dz;
        }
        g
    })
    .run(POINTS, range(11, -1.5, 1.5));
    // kron of two 2x2 matrices, weighted.
    let weight = |i: usize, j: usize, k: usize, l: usize| {
        1.0 + (2 * i + k) as f64 - 0.5 * (2 * j + l) as f64
    };
    Probe::new("kron", |x| {
        zy::kron(square::<2>(&x[..4]), square::<2>(&x[4..]))
    })
    .grad(|x| {
        let (v, (a, b)) = zy::kron_grad(square::<2>(&x[..4]), square::<2>(&x[4..]));
        (v, [a.concat(), b.concat()].concat())
    })
    .jvp(|x, t| {
        zy::kron_jvp(
            square::<2>(&x[..4]),
            square::<2>(&x[4..]),
            (square::<2>(&t[..4]), square::<2>(&t[4..])),
        )
    })
    .hessian(|x| {
        let (v, (a, b), h) = zy::kron_hessian(square::<2>(&x[..4]), square::<2>(&x[4..]));
        (v, [a.concat(), b.concat()].concat(), h)
    })
    .analytic(move |x| {
        let mut g = vec![0.0; 8];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    for l in 0..2 {
                        let w = weight(i, j, k, l);
                        g[2 * i + j] += w * x[4 + 2 * k + l];
                        g[4 + 2 * k + l] += w * x[2 * i + j];
                    }
                }
            }
        }
        g
    })
    .run(POINTS, range(8, -2.0, 2.0));
    matrix!(
        "tr_square",
        3,
        zy::tr_square,
        zy::tr_square_grad,
        zy::tr_square_jvp,
        zy::tr_square_grad_into,
        zy::tr_square_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                g[i * 3 + j] = 2.0 * x[j * 3 + i];
            }
        }
        g
    })
    .run(POINTS, range(9, -2.0, 2.0));
    // logdet through Cholesky: symmetric positive definite inputs B B^T + 3 I; only the lower triangle
    // is read, so the gradient is the lower triangle of 2 A^-1 - diag(A^-1).
    let spd = |r: &mut Lcg| {
        let b = r.vec(9, -1.0, 1.0);
        let mut a = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                a[i * 3 + j] = (0..3).map(|k| b[i * 3 + k] * b[j * 3 + k]).sum::<f64>()
                    + if i == j { 3.0 } else { 0.0 };
            }
        }
        a
    };
    matrix!(
        "logdet_chol",
        3,
        zy::logdet_chol,
        zy::logdet_chol_grad,
        zy::logdet_chol_jvp,
        zy::logdet_chol_grad_into,
        zy::logdet_chol_hessian
    )
    .analytic(|x| {
        // The inverse of the symmetric matrix whose lower triangle `x` holds.
        let s = |i: usize, j: usize| if i >= j { x[i * 3 + j] } else { x[j * 3 + i] };
        let m: Flat = (0..9).map(|k| s(k / 3, k % 3)).collect();
        let det = zygote::det3_flat(&m);
        let c = cofactors3(&m);
        let mut g = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..=i {
                let inv = c[j * 3 + i] / det;
                g[i * 3 + j] = if i == j { inv } else { 2.0 * inv };
            }
        }
        g
    })
    .run(POINTS, spd);
    check_vector(
        "inv2",
        POINTS,
        |r: &mut Lcg| {
            let mut x = r.vec(4, -0.5, 0.5);
            x[0] += 2.0;
            x[3] -= 2.0;
            x
        },
        &|x| zy::inv2(square::<2>(x)).to_vec(),
        &|x, c| {
            let (v, g) = zy::inv2_vjp(square::<2>(x), c.try_into().unwrap());
            (v.to_vec(), g.concat())
        },
        &|x, t| {
            let (v, d) = zy::inv2_jvp(square::<2>(x), square::<2>(t));
            (v.to_vec(), d.to_vec())
        },
        Some(&|x| zy::inv2_jacobian(square::<2>(x))),
    );
    // A \ b with pivoting: random matrices kept away from singular by a dominant anti-diagonal, so the
    // pivots swap rows.
    let system = |r: &mut Lcg| {
        let mut x = r.vec(12, -1.0, 1.0);
        x[2] += 3.0;
        x[4] += 3.5;
        x[6] -= 4.0;
        x
    };
    check_vector(
        "solve",
        POINTS,
        system,
        &|x| zy::solve(&rows(&x[..9], 3), &x[9..]),
        &|x, c| {
            let (v, (a, b)) = zy::solve_vjp(&rows(&x[..9], 3), &x[9..], c.to_vec());
            (v, [a.concat(), b].concat())
        },
        &|x, t| {
            zy::solve_jvp(
                &rows(&x[..9], 3),
                &x[9..],
                (rows(&t[..9], 3), t[9..].to_vec()),
            )
        },
        Some(&|x| zy::solve_jacobian(&rows(&x[..9], 3), &x[9..])),
    );
    let a = rows(&[0.1, 0.2, 3.0, 0.3, 3.5, -0.2, -4.0, 0.5, 0.1], 3);
    let x = zy::solve(&a, &[1.0, 2.0, 3.0]);
    for i in 0..3 {
        assert_near(
            dot(&a[i], &x),
            [1.0, 2.0, 3.0][i],
            1e-13,
            0.0,
            "solve solves",
        );
    }
    Probe::new("solve_sq", |x| zy::solve_sq(&rows(&x[..9], 3), &x[9..]))
        .grad(|x| {
            let (v, (a, b)) = zy::solve_sq_grad(&rows(&x[..9], 3), &x[9..]);
            (v, [a.concat(), b].concat())
        })
        .jvp(|x, t| {
            zy::solve_sq_jvp(
                &rows(&x[..9], 3),
                &x[9..],
                (rows(&t[..9], 3), t[9..].to_vec()),
            )
        })
        .hessian(|x| {
            let (v, (a, b), h) = zy::solve_sq_hessian(&rows(&x[..9], 3), &x[9..]);
            (v, [a.concat(), b].concat(), h)
        })
        .analytic(|x| {
            // f = |A^-1 b|^2: df/db = 2 A^-T y, df/dA = -(2 A^-T y) y^T with y = A^-1 b.
            let a = rows(&x[..9], 3);
            let y = zy::solve(&a, &x[9..]);
            let at: Vec<Flat> = (0..3).map(|j| (0..3).map(|i| a[i][j]).collect()).collect();
            let lam = zy::solve(&at, &y.iter().map(|v| 2.0 * v).collect::<Flat>());
            let mut g = vec![0.0; 12];
            for i in 0..3 {
                for j in 0..3 {
                    g[i * 3 + j] = -lam[i] * y[j];
                }
                g[9 + i] = lam[i];
            }
            g
        })
        .run(POINTS, system);
    slice2!(
        zy::reverse_weighted,
        reverse_weighted_grad,
        reverse_weighted_jvp,
        reverse_weighted_grad_into,
        reverse_weighted_hessian
    )
    .analytic(|x| {
        let n = x.len();
        (0..n).map(|i| 2.0 * (n - i) as f64 * x[i]).collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        zy::sort_weighted,
        sort_weighted_grad,
        sort_weighted_jvp,
        sort_weighted_grad_into,
        sort_weighted_hessian
    )
    .analytic(|x| {
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap());
        let mut g = vec![0.0; x.len()];
        for (rank, &i) in order.iter().enumerate() {
            let w = rank as f64 + 1.0;
            g[i] = w * (x[i].sin() + x[i] * x[i].cos());
        }
        g
    })
    .run(POINTS, distinct(6, -2.0, 2.0, 0.01));
    slice2!(
        zy::getindex,
        getindex_grad,
        getindex_jvp,
        getindex_grad_into,
        getindex_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        g[0] = 2.0 * x[0];
        g[1] = x[2];
        g[2] = x[1] + 1.0;
        g
    })
    .run(10, range(4, -2.0, 2.0));
    two_slices!(
        "vcat_weighted",
        3,
        zy::vcat_weighted,
        zy::vcat_weighted_grad,
        zy::vcat_weighted_jvp,
        zy::vcat_weighted_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = zy::vcat_weighted_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let w = |i: usize| (0.3 * i as f64).cos();
        let (n, m) = (3, 2);
        let mut g = vec![0.0; 5];
        for i in 0..n {
            g[i] = 3.0 * x[i] * x[i] * (w(i) + w(n + m + i));
        }
        for j in 0..m {
            g[n + m - 1 - j] = 3.0 * x[n + m - 1 - j].powi(2) * w(n + j);
        }
        g
    })
    .run(POINTS, range(5, -2.0, 2.0));
    two_slices!(
        "xlogy",
        4,
        zy::xlogy,
        zy::xlogy_grad,
        zy::xlogy_jvp,
        zy::xlogy_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = zy::xlogy_hessian(&x[..4], &x[4..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 8];
        for i in 0..4 {
            g[i] = x[4 + i].ln();
            g[4 + i] = x[i] / x[4 + i];
        }
        g
    })
    .run(POINTS, range(8, 0.2, 2.0));
    // At `x[i] == 0` the term is skipped (`continue`): its derivative in `x[i]` is zero there, in `y[i]`
    // too, as Zygote's `xlogy` rule gives.
    let (_, (gx, gy)) = zy::xlogy_grad(&[0.0, 0.5], &[2.0, 3.0]);
    assert_eq!((gx[0], gy[0]), (0.0, 0.0));
    assert_near(gx[1], 3.0_f64.ln(), 1e-15, 0.0, "xlogy");
    // `mul!` into an output parameter, its Jacobian over `(A, x)`.
    check_vector(
        "mul_into",
        POINTS,
        range(9, -2.0, 2.0),
        &|x| {
            let mut out = vec![GARBAGE; 2];
            zy::mul_into(&mut out, &rows(&x[..6], 3), &x[6..]);
            out
        },
        &|x, c| {
            let mut out = vec![GARBAGE; 2];
            let (a, xs) = zy::mul_into_vjp(&mut out, &rows(&x[..6], 3), &x[6..], c);
            (out, [a.concat(), xs].concat())
        },
        &|x, t| {
            let mut out = vec![GARBAGE; 2];
            let mut d = vec![GARBAGE; 2];
            zy::mul_into_jvp(
                &mut out,
                &rows(&x[..6], 3),
                &x[6..],
                (rows(&t[..6], 3), t[6..].to_vec()),
                &mut d,
            );
            (out, d)
        },
        Some(&|x| zy::mul_into_jacobian(&mut [GARBAGE; 2], &rows(&x[..6], 3), &x[6..])),
    );
    Probe::new("diag_outer", |x| {
        zy::diag_outer(&rows(&x[..9], 3), &x[9..12], &x[12..])
    })
    .grad(|x| {
        let (v, (a, p, q)) = zy::diag_outer_grad(&rows(&x[..9], 3), &x[9..12], &x[12..]);
        (v, [a.concat(), p, q].concat())
    })
    .jvp(|x, t| {
        zy::diag_outer_jvp(
            &rows(&x[..9], 3),
            &x[9..12],
            &x[12..],
            (rows(&t[..9], 3), t[9..12].to_vec(), t[12..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (a, p, q), h) = zy::diag_outer_hessian(&rows(&x[..9], 3), &x[9..12], &x[12..]);
        (v, [a.concat(), p, q].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 15];
        let d = [x[0], x[4], x[8]];
        for i in 0..3 {
            for j in 0..3 {
                g[i * 3 + j] = x[9 + i] * x[12 + j];
                g[9 + i] += x[i * 3 + j] * x[12 + j];
                g[12 + j] += x[i * 3 + j] * x[9 + i];
            }
            g[i * 4] += (0..3).filter(|&k| k != i).map(|k| d[k]).product::<f64>();
        }
        g
    })
    .run(POINTS, range(15, -1.5, 1.5));
}

#[test]
fn zygote_loops_and_scalars() {
    use zygote as zy;
    for n in [0usize, 1, 2, 5] {
        Probe::new("pow_while", move |x| zy::pow_while(x[0], n))
            .grad(move |x| {
                let (v, d) = zy::pow_while_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| zy::pow_while_jvp(x[0], n, t[0]))
            .grad_into(move |x| {
                let mut d = GARBAGE;
                let v = zy::pow_while_grad_into(x[0], n, &mut d);
                (v, vec![d])
            })
            .hessian(move |x| {
                let (v, d, h) = zy::pow_while_hessian(x[0], n);
                let ds = zy::pow_while_derivatives(x[0], n);
                assert_near(ds[2], h[0][0], 1e-12, 1.0, "pow_while: f'' two ways");
                (v, vec![d], h)
            })
            .analytic(move |x| {
                vec![if n == 0 {
                    0.0
                } else {
                    n as f64 * x[0].powi(n as i32 - 1)
                }]
            })
            .run(POINTS, range(1, -1.5, 1.5));
        let ds = zy::pow_while_derivatives(1.3, n);
        let nf = n as f64;
        let third = nf * (nf - 1.0) * (nf - 2.0) * 1.3_f64.powi(n as i32 - 3);
        assert_near(
            ds[3],
            if n < 3 { 0.0 } else { third },
            1e-12,
            1.0,
            "pow_while'''",
        );
        Probe::new("pow_rec", move |x| zy::pow_rec(x[0], n))
            .grad(move |x| {
                let (v, d) = zy::pow_rec_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| zy::pow_rec_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = zy::pow_rec_hessian(x[0], n);
                (v, vec![d], h)
            })
            .analytic(move |x| {
                vec![if n == 0 {
                    0.0
                } else {
                    n as f64 * x[0].powi(n as i32 - 1)
                }]
            })
            .run(POINTS, range(1, -1.5, 1.5));
    }
    for n in [1usize, 4] {
        Probe::new("fill_sin", move |x| zy::fill_sin(x[0], n))
            .grad(move |x| {
                let (v, d) = zy::fill_sin_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| zy::fill_sin_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = zy::fill_sin_hessian(x[0], n);
                (v, vec![d], h)
            })
            .analytic(move |x| vec![(1..=n).map(|k| k as f64 * (k as f64 * x[0]).cos()).sum()])
            .run(POINTS, range(1, -2.0, 2.0));
    }
    Probe::new("clamp_sq", |x| zy::clamp_sq(&x[..5], x[5], x[6]))
        .grad(|x| {
            let (v, (g, lo, hi)) = zy::clamp_sq_grad(&x[..5], x[5], x[6]);
            (v, [g, vec![lo, hi]].concat())
        })
        .jvp(|x, t| zy::clamp_sq_jvp(&x[..5], x[5], x[6], (t[..5].to_vec(), t[5], t[6])))
        .hessian(|x| {
            let (v, (g, lo, hi), h) = zy::clamp_sq_hessian(&x[..5], x[5], x[6]);
            (v, [g, vec![lo, hi]].concat(), h)
        })
        .analytic(|x| {
            let (lo, hi) = (x[5], x[6]);
            let mut g = vec![0.0; 7];
            for i in 0..5 {
                let c = x[i].clamp(lo, hi);
                let slot = if x[i] < lo {
                    5
                } else if x[i] > hi {
                    6
                } else {
                    i
                };
                g[slot] += 2.0 * c;
            }
            g
        })
        .run(POINTS, |r: &mut Lcg| {
            let mut x = distinct(7, -2.0, 2.0, 0.02)(r);
            x[5] = -0.7 + 0.1 * x[5];
            x[6] = 0.8 + 0.1 * x[6];
            x
        });
    Probe::new("hypot3", |x| zy::hypot3(x[0], x[1], x[2]))
        .grad(|x| {
            let (v, (a, b, c)) = zy::hypot3_grad(x[0], x[1], x[2]);
            (v, vec![a, b, c])
        })
        .jvp(|x, t| zy::hypot3_jvp(x[0], x[1], x[2], (t[0], t[1], t[2])))
        .grad_into(|x| {
            let (mut a, mut b, mut c) = (GARBAGE, GARBAGE, GARBAGE);
            let v = zy::hypot3_grad_into(x[0], x[1], x[2], (&mut a, &mut b, &mut c));
            (v, vec![a, b, c])
        })
        .hessian(|x| {
            let (v, (a, b, c), h) = zy::hypot3_hessian(x[0], x[1], x[2]);
            (v, vec![a, b, c], h)
        })
        .analytic(|x| {
            let r = norm(x);
            x.iter().map(|v| v / r).collect()
        })
        .run(POINTS, range(3, -2.0, 2.0));
}

/// A probe of a one-scalar `order = 3` function, by its module and name, with its analytic derivative,
/// then `f_derivatives` against central differences of its own lower entries on `[lo, hi]`.
macro_rules! scalar3 {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident, $d:ident, $lo:expr, $hi:expr, $formula:expr) => {{
        one(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi)
            .hessian(hess1($m::$h, $m::$d))
            .analytic(move |x: &[f64]| vec![($formula)(x[0])])
            .run(POINTS, range(1, $lo, $hi));
        check_third(stringify!($f), $m::$d, POINTS, $lo, $hi);
    }};
}

/// The same for an `order = 2` function (no third derivative).
macro_rules! scalar2 {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident, $d:ident, $sample:expr, $formula:expr) => {{
        one(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi)
            .hessian(hess1($m::$h, $m::$d))
            .analytic(move |x: &[f64]| vec![($formula)(x[0])])
            .run(POINTS, $sample);
    }};
}

#[test]
fn chainrules_scalar_rules() {
    use rules as ru;
    use std::f64::consts::{LN_10, LN_2, PI};
    scalar3!(
        ru::sec_csc_cot,
        sec_csc_cot_grad,
        sec_csc_cot_jvp,
        sec_csc_cot_grad_into,
        sec_csc_cot_hessian,
        sec_csc_cot_derivatives,
        0.2,
        1.3,
        |x: f64| x.sin() / x.cos().powi(2) - x.cos() / x.sin().powi(2) - 1.0 / x.sin().powi(2)
    );
    scalar3!(
        ru::asec_acsc_acot,
        asec_acsc_acot_grad,
        asec_acsc_acot_jvp,
        asec_acsc_acot_grad_into,
        asec_acsc_acot_hessian,
        asec_acsc_acot_derivatives,
        1.2,
        4.0,
        |x: f64| {
            let r = (x * x - 1.0).sqrt();
            1.0 / (x * r) - 1.0 / (x * r) - 1.0 / (1.0 + x * x)
        }
    );
    scalar3!(
        ru::sech_csch_coth,
        sech_csch_coth_grad,
        sech_csch_coth_jvp,
        sech_csch_coth_grad_into,
        sech_csch_coth_hessian,
        sech_csch_coth_derivatives,
        0.3,
        2.5,
        |x: f64| -x.tanh() / x.cosh() - x.cosh() / x.sinh().powi(2) - 1.0 / x.sinh().powi(2)
    );
    scalar3!(
        ru::acoth_acsch,
        acoth_acsch_grad,
        acoth_acsch_jvp,
        acoth_acsch_grad_into,
        acoth_acsch_hessian,
        acoth_acsch_derivatives,
        1.2,
        4.0,
        |x: f64| 1.0 / (1.0 - x * x) - 1.0 / (x * (1.0 + x * x).sqrt())
    );
    scalar3!(
        ru::asech,
        asech_grad,
        asech_jvp,
        asech_grad_into,
        asech_hessian,
        asech_derivatives,
        0.1,
        0.9,
        |x: f64| -1.0 / (x * (1.0 - x * x).sqrt())
    );
    scalar3!(
        ru::sinpi_cospi,
        sinpi_cospi_grad,
        sinpi_cospi_jvp,
        sinpi_cospi_grad_into,
        sinpi_cospi_hessian,
        sinpi_cospi_derivatives,
        -2.0,
        2.0,
        |x: f64| PI * ((PI * x).cos() - (PI * x).sin())
    );
    scalar3!(
        ru::sinc,
        sinc_grad,
        sinc_jvp,
        sinc_grad_into,
        sinc_hessian,
        sinc_derivatives,
        0.05,
        3.0,
        |x: f64| {
            let px = PI * x;
            (px.cos() * px - px.sin()) / (px * x)
        }
    );
    // At 0 the branch returns the constant 1: JAX's convention gives 0, the true derivative there too.
    assert_eq!(ru::sinc_grad(0.0), (1.0, 0.0));
    scalar3!(
        ru::exp10_log10,
        exp10_log10_grad,
        exp10_log10_jvp,
        exp10_log10_grad_into,
        exp10_log10_hessian,
        exp10_log10_derivatives,
        0.2,
        1.5,
        |x: f64| LN_10 * 10.0_f64.powf(x) + 1.0 / (x * LN_10)
    );
    scalar3!(
        ru::deg_rad,
        deg_rad_grad,
        deg_rad_jvp,
        deg_rad_grad_into,
        deg_rad_hessian,
        deg_rad_derivatives,
        -3.0,
        3.0,
        |x: f64| 2.0 * x
    );
    scalar3!(
        ru::abs2_cbrt,
        abs2_cbrt_grad,
        abs2_cbrt_jvp,
        abs2_cbrt_grad_into,
        abs2_cbrt_hessian,
        abs2_cbrt_derivatives,
        0.2,
        3.0,
        |x: f64| 2.0 * x + 1.0 / (3.0 * x.cbrt() * x.cbrt())
    );
    scalar3!(
        ru::abs2_cbrt,
        abs2_cbrt_grad,
        abs2_cbrt_jvp,
        abs2_cbrt_grad_into,
        abs2_cbrt_hessian,
        abs2_cbrt_derivatives,
        -3.0,
        -0.2,
        |x: f64| 2.0 * x + 1.0 / (3.0 * x.cbrt() * x.cbrt())
    );
    scalar3!(
        ru::sincos_weighted,
        sincos_weighted_grad,
        sincos_weighted_jvp,
        sincos_weighted_grad_into,
        sincos_weighted_hessian,
        sincos_weighted_derivatives,
        -3.0,
        3.0,
        |x: f64| 2.0 * x.cos() - 3.0 * x.sin()
    );
    scalar3!(
        ru::powers,
        powers_grad,
        powers_jvp,
        powers_grad_into,
        powers_hessian,
        powers_derivatives,
        0.3,
        3.0,
        |x: f64| -3.0 * x.powi(-4) + 2.5 * x.powf(1.5)
    );
    scalar3!(
        ru::hyperbolic,
        hyperbolic_grad,
        hyperbolic_jvp,
        hyperbolic_grad_into,
        hyperbolic_hessian,
        hyperbolic_derivatives,
        -1.5,
        1.5,
        |x: f64| {
            let a = 1.5 + x * x;
            1.0 - x.tanh().powi(2)
                + 1.0 / (1.0 + x * x).sqrt()
                + 2.0 * x / (a * a - 1.0).sqrt()
                + 0.5 / (1.0 - x * x / 4.0)
        }
    );
    scalar3!(
        ru::exp_log_family,
        exp_log_family_grad,
        exp_log_family_jvp,
        exp_log_family_grad_into,
        exp_log_family_hessian,
        exp_log_family_derivatives,
        0.2,
        3.0,
        |x: f64| LN_2 * x.exp2() + 1.0 / (x * LN_2) + x.exp() + 1.0 / (1.0 + x)
    );
    scalar2!(
        ru::sign_abs,
        sign_abs_grad,
        sign_abs_jvp,
        sign_abs_grad_into,
        sign_abs_hessian,
        sign_abs_derivatives,
        away_from(1, -2.0, 2.0, 10.0, 0.0),
        |x: f64| 3.0 * x * x * x.signum() + x.signum()
    );
    scalar2!(
        ru::rounding,
        rounding_grad,
        rounding_jvp,
        rounding_grad_into,
        rounding_hessian,
        rounding_derivatives,
        away_from(1, -3.0, 3.0, 0.5, 0.0),
        |x: f64| 2.0 * x
    );
    // Tuples: `sincos` through its vjp and jvp.
    check_vector(
        "sincos",
        POINTS,
        range(1, -3.0, 3.0),
        &|x| {
            let (s, c) = ru::sincos(x[0]);
            vec![s, c]
        },
        &|x, c| {
            let ((s, co), g) = ru::sincos_vjp(x[0], (c[0], c[1]));
            (vec![s, co], vec![g])
        },
        &|x, t| {
            let ((s, c), (ds, dc)) = ru::sincos_jvp(x[0], t[0]);
            (vec![s, c], vec![ds, dc])
        },
        None,
    );
    // Two and three arguments.
    two(
        "log_base",
        ru::log_base,
        ru::log_base_grad,
        ru::log_base_jvp,
        ru::log_base_grad_into,
    )
    .hessian(hess2(ru::log_base_hessian))
    .analytic(|x| {
        let (b, y) = (x[0], x[1]);
        let lb = b.ln();
        vec![-2.0 * y.ln() / (b * lb * lb), 2.0 / (y * lb)]
    })
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(1.3, 4.0), r.uniform(0.2, 5.0)]
    });
    two(
        "mod_rem",
        ru::mod_rem,
        ru::mod_rem_grad,
        ru::mod_rem_jvp,
        ru::mod_rem_grad_into,
    )
    .hessian(hess2(ru::mod_rem_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        vec![3.0, -(a / b).floor() - 2.0 * (a / b).trunc()]
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let (a, b) = (r.uniform(-5.0, 5.0), r.uniform(0.7, 2.0));
        let q = a / b;
        if (q - q.round()).abs() > 0.02 {
            break vec![a, b];
        }
    });
    two(
        "max_min",
        ru::max_min,
        ru::max_min_grad,
        ru::max_min_jvp,
        ru::max_min_grad_into,
    )
    .hessian(hess2(ru::max_min_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        // max(a, b) min(a, b) = a b on either side.
        let (mut ga, mut gb) = (b, a);
        if a > 2.0 * b {
            ga += 1.0;
        } else {
            gb += 2.0;
        }
        vec![ga, gb]
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let (a, b) = (r.uniform(-2.0, 2.0), r.uniform(-2.0, 2.0));
        if (a - b).abs() > 0.01 && (a - 2.0 * b).abs() > 0.01 {
            break vec![a, b];
        }
    });
    two(
        "atan_two",
        ru::atan_two,
        ru::atan_two_grad,
        ru::atan_two_jvp,
        ru::atan_two_grad_into,
    )
    .hessian(hess2(ru::atan_two_hessian))
    .analytic(|x| {
        let (y, z) = (x[0], x[1]);
        let r2 = y * y + z * z;
        vec![2.0 * z / r2, -2.0 * y / r2]
    })
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(-2.0, 2.0), r.uniform(0.3, 2.0)]
    });
    two(
        "pow_inv",
        ru::pow_inv,
        ru::pow_inv_grad,
        ru::pow_inv_jvp,
        ru::pow_inv_grad_into,
    )
    .hessian(hess2(ru::pow_inv_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        vec![
            b * a.powf(b - 1.0) - b / (a * a),
            a.powf(b) * a.ln() + 1.0 / a,
        ]
    })
    .run(POINTS, range(2, 0.3, 2.5));
    Probe::new("muladd_fma", |x| ru::muladd_fma(x[0], x[1], x[2]))
        .grad(|x| {
            let (v, (a, b, c)) = ru::muladd_fma_grad(x[0], x[1], x[2]);
            (v, vec![a, b, c])
        })
        .jvp(|x, t| ru::muladd_fma_jvp(x[0], x[1], x[2], (t[0], t[1], t[2])))
        .hessian(|x| {
            let (v, (a, b, c), h) = ru::muladd_fma_hessian(x[0], x[1], x[2]);
            (v, vec![a, b, c], h)
        })
        .analytic(|x| {
            let (a, b, c) = (x[0], x[1], x[2]);
            vec![b + b * c, a + a * c, 1.0 + a * b + 2.0 * c]
        })
        .run(POINTS, range(3, -2.0, 2.0));
    Probe::new("evalpoly", |x| ru::evalpoly(x[0], &x[1..]))
        .grad(|x| {
            let (v, (a, p)) = ru::evalpoly_grad(x[0], &x[1..]);
            (v, [vec![a], p].concat())
        })
        .jvp(|x, t| ru::evalpoly_jvp(x[0], &x[1..], (t[0], t[1..].to_vec())))
        .grad_into(|x| {
            let mut a = GARBAGE;
            let mut p = vec![GARBAGE; x.len() - 1];
            let v = ru::evalpoly_grad_into(x[0], &x[1..], (&mut a, &mut p));
            (v, [vec![a], p].concat())
        })
        .hessian(|x| {
            let (v, (a, p), h) = ru::evalpoly_hessian(x[0], &x[1..]);
            (v, [vec![a], p].concat(), h)
        })
        .analytic(|x| {
            let z = x[0];
            let p = &x[1..];
            let mut g = vec![(1..p.len())
                .map(|k| k as f64 * p[k] * z.powi(k as i32 - 1))
                .sum()];
            g.extend((0..p.len()).map(|k| z.powi(k as i32)));
            g
        })
        .run(POINTS, range(6, -1.5, 1.5));
}

/// A probe of `f(a: &[f64], b: &[f64], <data>)` with only `a` active (`wrt(a)`), the data fixed.
macro_rules! first_slice {
    ($name:expr, $data:expr, $f:path, $g:path, $j:path, $gi:path, $h:path) => {{
        let data = $data;
        let d2 = data.clone();
        let d3 = data.clone();
        let d4 = data.clone();
        let d5 = data.clone();
        Probe::new($name, move |x| $f(x, &data))
            .grad(move |x| $g(x, &d2))
            .jvp(move |x, t| $j(x, &d3, t.to_vec()))
            .grad_into(move |x| {
                let mut g = vec![GARBAGE; x.len()];
                let v = $gi(x, &d4, &mut g);
                (v, g)
            })
            .hessian(move |x| $h(x, &d5))
    }};
}

#[test]
fn pytorch_losses() {
    use torch as to;
    let mut rng = Lcg::new(11);
    let n = 6;
    let target = rng.vec(n, -1.0, 1.0);
    // Huber with delta = 0.8, away from the switch |d| = delta and from d = 0.
    let tg = target.clone();
    let away_huber = move |r: &mut Lcg| -> Flat {
        (0..n)
            .map(|i| loop {
                let p = r.uniform(-2.5, 2.5);
                let d = (p - tg[i]).abs();
                if (d - 0.8).abs() > 0.01 && d > 0.01 {
                    break p;
                }
            })
            .collect()
    };
    let t2 = target.clone();
    Probe::new("huber", {
        let t = target.clone();
        move |x| to::huber(x, &t, 0.8)
    })
    .grad({
        let t = target.clone();
        move |x| to::huber_grad(x, &t, 0.8)
    })
    .jvp({
        let t = target.clone();
        move |x, v| to::huber_jvp(x, &t, 0.8, v.to_vec())
    })
    .grad_into({
        let t = target.clone();
        move |x| {
            let mut g = vec![GARBAGE; x.len()];
            let v = to::huber_grad_into(x, &t, 0.8, &mut g);
            (v, g)
        }
    })
    .hessian({
        let t = target.clone();
        move |x| to::huber_hessian(x, &t, 0.8)
    })
    .analytic(move |x| {
        x.iter()
            .zip(&t2)
            .map(|(p, t)| {
                let d = p - t;
                (if d.abs() < 0.8 { d } else { 0.8 * d.signum() }) / n as f64
            })
            .collect()
    })
    .run(POINTS, away_huber.clone());
    // Smooth L1 with both sides active, beta = 0.5.
    two_slices!(
        "smooth_l1",
        n,
        smooth_l1_b,
        smooth_l1_b_grad,
        smooth_l1_b_jvp,
        smooth_l1_b_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = to::smooth_l1_hessian(&x[..n], &x[n..], 0.5);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let g: Flat = (0..n)
            .map(|i| {
                let d = x[i] - x[n + i];
                (if d.abs() < 0.5 { d / 0.5 } else { d.signum() }) / n as f64
            })
            .collect();
        [g.clone(), g.iter().map(|v| -v).collect()].concat()
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2 * n, -2.0, 2.0);
        if (0..n).all(|i| {
            let d = (x[i] - x[n + i]).abs();
            (d - 0.5).abs() > 0.01 && d > 0.01
        }) {
            break x;
        }
    });
    two_slices!(
        "log_cosh",
        n,
        to::log_cosh,
        to::log_cosh_grad,
        to::log_cosh_jvp,
        to::log_cosh_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = to::log_cosh_hessian(&x[..n], &x[n..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let g: Flat = (0..n).map(|i| (x[i] - x[n + i]).tanh()).collect();
        [g.clone(), g.iter().map(|v| -v).collect()].concat()
    })
    .run(POINTS, away_from(2 * n, -3.0, 3.0, 50.0, 25.0));
    // The value agrees with log(cosh(d)) where that does not overflow.
    let (a, b): ([f64; 2], [f64; 2]) = ([0.3, -1.2], [1.0, 0.4]);
    let direct: f64 = (0..2).map(|i| (a[i] - b[i]).cosh().ln()).sum();
    assert_near(to::log_cosh(&a, &b), direct, 1e-14, 0.0, "log_cosh value");
    let labels: Flat = (0..n).map(|i| (i % 2) as f64).collect();
    let l2 = labels.clone();
    first_slice!(
        "focal",
        labels.clone(),
        to::focal,
        to::focal_grad,
        to::focal_jvp,
        to::focal_grad_into,
        to::focal_hessian
    )
    .analytic(move |z| {
        z.iter()
            .zip(&l2)
            .map(|(&z, &y)| {
                // pt = sigmoid(+-z), loss = -a (1 - pt)^2 ln pt, d pt / dz = +-pt (1 - pt).
                let (sign, at) = if y > 0.5 { (1.0, 0.25) } else { (-1.0, 0.75) };
                let pt = sigmoid(sign * z);
                let dpt = sign * pt * (1.0 - pt);
                -at * (-2.0 * (1.0 - pt) * pt.ln() + (1.0 - pt).powi(2) / pt) * dpt
            })
            .collect()
    })
    .run(POINTS, range(n, -3.0, 3.0));
    let l3 = labels.clone();
    first_slice!(
        "bce_with_logits",
        labels.clone(),
        to::bce_with_logits,
        to::bce_with_logits_grad,
        to::bce_with_logits_jvp,
        to::bce_with_logits_grad_into,
        to::bce_with_logits_hessian
    )
    .analytic(move |z| {
        z.iter()
            .zip(&l3)
            .map(|(&z, &y)| (sigmoid(z) - y) / n as f64)
            .collect()
    })
    .run(POINTS, away_from(n, -4.0, 4.0, 20.0, 0.0));
    let signs: Flat = (0..n)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let s2 = signs.clone();
    let s3 = signs.clone();
    first_slice!(
        "hinge",
        signs.clone(),
        to::hinge,
        to::hinge_grad,
        to::hinge_jvp,
        to::hinge_grad_into,
        to::hinge_hessian
    )
    .analytic(move |x| {
        x.iter()
            .zip(&s2)
            .map(|(&v, &y)| if 1.0 - y * v > 0.0 { -y } else { 0.0 })
            .collect()
    })
    .run(POINTS, move |r: &mut Lcg| -> Flat {
        (0..n)
            .map(|i| loop {
                let v = r.uniform(-3.0, 3.0);
                if (1.0 - s3[i] * v).abs() > 0.01 {
                    break v;
                }
            })
            .collect()
    });
    let s4 = signs.clone();
    first_slice!(
        "poisson_nll",
        target.clone(),
        to::poisson_nll,
        to::poisson_nll_grad,
        to::poisson_nll_jvp,
        to::poisson_nll_grad_into,
        to::poisson_nll_hessian
    )
    .analytic({
        let t = target.clone();
        move |x| x.iter().zip(&t).map(|(v, t)| v.exp() - t).collect()
    })
    .run(POINTS, range(n, -2.0, 2.0));
    first_slice!(
        "soft_margin",
        signs.clone(),
        to::soft_margin,
        to::soft_margin_grad,
        to::soft_margin_jvp,
        to::soft_margin_grad_into,
        to::soft_margin_hessian
    )
    .analytic(move |x| {
        x.iter()
            .zip(&s4)
            .map(|(&v, &y)| -y * sigmoid(-y * v) / n as f64)
            .collect()
    })
    .run(POINTS, range(n, -3.0, 3.0));
    two_slices!(
        "kl_div",
        n,
        to::kl_div,
        to::kl_div_grad,
        to::kl_div_jvp,
        to::kl_div_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = to::kl_div_hessian(&x[..n], &x[n..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let q = &x[n..];
        let lp = &x[..n];
        [
            q.iter().map(|v| -v).collect::<Flat>(),
            (0..n).map(|i| q[i].ln() + 1.0 - lp[i]).collect(),
        ]
        .concat()
    })
    .run(POINTS, |r: &mut Lcg| {
        [r.vec(n, -3.0, -0.1), r.vec(n, 0.05, 1.0)].concat()
    });
    two_slices!(
        "mse_l1",
        n,
        to::mse_l1,
        to::mse_l1_grad,
        to::mse_l1_jvp,
        to::mse_l1_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = to::mse_l1_hessian(&x[..n], &x[n..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let g: Flat = (0..n)
            .map(|i| {
                let d = x[i] - x[n + i];
                (2.0 * d + d.signum()) / n as f64
            })
            .collect();
        [g.clone(), g.iter().map(|v| -v).collect()].concat()
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2 * n, -2.0, 2.0);
        if (0..n).all(|i| (x[i] - x[n + i]).abs() > 0.01) {
            break x;
        }
    });
    two_slices!(
        "cosine_similarity",
        n,
        to::cosine_similarity,
        to::cosine_similarity_grad,
        to::cosine_similarity_jvp,
        to::cosine_similarity_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = to::cosine_similarity_hessian(&x[..n], &x[n..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let (a, b) = (&x[..n], &x[n..]);
        let (na, nb, ab) = (norm(a), norm(b), dot(a, b));
        let ga: Flat = (0..n)
            .map(|i| b[i] / (na * nb) - ab * a[i] / (na.powi(3) * nb))
            .collect();
        let gb: Flat = (0..n)
            .map(|i| a[i] / (na * nb) - ab * b[i] / (nb.powi(3) * na))
            .collect();
        [ga, gb].concat()
    })
    .run(POINTS, range(2 * n, -2.0, 2.0));
    Probe::new("triplet_margin", |x| {
        to::triplet_margin(&x[..3], &x[3..6], &x[6..])
    })
    .grad(|x| {
        let (v, (a, p, q)) = to::triplet_margin_grad(&x[..3], &x[3..6], &x[6..]);
        (v, [a, p, q].concat())
    })
    .jvp(|x, t| {
        to::triplet_margin_jvp(
            &x[..3],
            &x[3..6],
            &x[6..],
            (t[..3].to_vec(), t[3..6].to_vec(), t[6..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (a, p, q), h) = to::triplet_margin_hessian(&x[..3], &x[3..6], &x[6..]);
        (v, [a, p, q].concat(), h)
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(9, -1.5, 1.5);
        let d = |o: usize| {
            (0..3)
                .map(|i| (x[i] - x[o + i] + 1e-6).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        if (d(3) - d(6) + 1.0).abs() > 0.02 {
            break x;
        }
    });
    Probe::new("margin_ranking", {
        let s = signs.clone();
        move |x| to::margin_ranking(&x[..n], &x[n..], &s, 0.3)
    })
    .grad({
        let s = signs.clone();
        move |x| {
            let (v, (a, b)) = to::margin_ranking_grad(&x[..n], &x[n..], &s, 0.3);
            (v, [a, b].concat())
        }
    })
    .jvp({
        let s = signs.clone();
        move |x, t| {
            to::margin_ranking_jvp(
                &x[..n],
                &x[n..],
                &s,
                0.3,
                (t[..n].to_vec(), t[n..].to_vec()),
            )
        }
    })
    .analytic({
        let s = signs.clone();
        move |x| {
            let mut g = vec![0.0; 2 * n];
            for i in 0..n {
                if -s[i] * (x[i] - x[n + i]) + 0.3 > 0.0 {
                    g[i] = -s[i];
                    g[n + i] = s[i];
                }
            }
            g
        }
    })
    .run(POINTS, {
        let s = signs.clone();
        move |r: &mut Lcg| loop {
            let x = r.vec(2 * n, -2.0, 2.0);
            if (0..n).all(|i| (-s[i] * (x[i] - x[n + i]) + 0.3).abs() > 0.01) {
                break x;
            }
        }
    });
    Probe::new("gaussian_nll", {
        let t = target.clone();
        move |x| to::gaussian_nll(&x[..n], &t, &x[n..])
    })
    .grad({
        let t = target.clone();
        move |x| {
            let (v, (a, b)) = to::gaussian_nll_grad(&x[..n], &t, &x[n..]);
            (v, [a, b].concat())
        }
    })
    .jvp({
        let t = target.clone();
        move |x, v| to::gaussian_nll_jvp(&x[..n], &t, &x[n..], (v[..n].to_vec(), v[n..].to_vec()))
    })
    .hessian({
        let t = target.clone();
        move |x| {
            let (v, (a, b), h) = to::gaussian_nll_hessian(&x[..n], &t, &x[n..]);
            (v, [a, b].concat(), h)
        }
    })
    .analytic({
        let t = target.clone();
        move |x| {
            let (mu, var) = (&x[..n], &x[n..]);
            let nf = n as f64;
            let gm: Flat = (0..n).map(|i| (mu[i] - t[i]) / var[i] / nf).collect();
            let gv: Flat = (0..n)
                .map(|i| 0.5 * (1.0 / var[i] - (mu[i] - t[i]).powi(2) / (var[i] * var[i])) / nf)
                .collect();
            [gm, gv].concat()
        }
    })
    .run(POINTS, |r: &mut Lcg| {
        [r.vec(n, -2.0, 2.0), r.vec(n, 0.2, 2.0)].concat()
    });
    // Cosine embedding: the early `return` for y = 1, the hinge for y = -1.
    for y in [1, -1] {
        Probe::new("cosine_embedding", move |x| {
            to::cosine_embedding(&x[..3], &x[3..], y, 0.2)
        })
        .grad(move |x| {
            let (v, (a, b)) = to::cosine_embedding_grad(&x[..3], &x[3..], y, 0.2);
            (v, [a, b].concat())
        })
        .jvp(move |x, t| {
            to::cosine_embedding_jvp(&x[..3], &x[3..], y, 0.2, (t[..3].to_vec(), t[3..].to_vec()))
        })
        .hessian(move |x| {
            let (v, (a, b), h) = to::cosine_embedding_hessian(&x[..3], &x[3..], y, 0.2);
            (v, [a, b].concat(), h)
        })
        .run(POINTS, move |r: &mut Lcg| loop {
            let x = r.vec(6, -2.0, 2.0);
            let c = dot(&x[..3], &x[3..]) / (norm(&x[..3]) * norm(&x[3..]));
            if (c - 0.2).abs() > 0.02 {
                break x;
            }
        });
    }
    // Dropout with a mask: masked entries get no gradient.
    let mask = [true, false, true, true, false, true];
    Probe::new("dropout", move |x| to::dropout(x, &mask, 0.3))
        .grad(move |x| to::dropout_grad(x, &mask, 0.3))
        .jvp(move |x, t| to::dropout_jvp(x, &mask, 0.3, t.to_vec()))
        .hessian(move |x| to::dropout_hessian(x, &mask, 0.3))
        .analytic(move |x| {
            (0..6)
                .map(|i| if mask[i] { 2.0 * x[i] / 0.49 } else { 0.0 })
                .collect()
        })
        .run(POINTS, range(6, -2.0, 2.0));
    // Cross-entropy with label smoothing over a batch of rows.
    let labels = [2usize, 0, 1];
    Probe::new("cross_entropy_smoothed", move |x| {
        to::cross_entropy_smoothed(&rows(x, 4), &labels, 0.1)
    })
    .grad(move |x| {
        let (v, g) = to::cross_entropy_smoothed_grad(&rows(x, 4), &labels, 0.1);
        (v, g.concat())
    })
    .jvp(move |x, t| to::cross_entropy_smoothed_jvp(&rows(x, 4), &labels, 0.1, rows(t, 4)))
    .hessian(move |x| {
        let (v, g, h) = to::cross_entropy_smoothed_hessian(&rows(x, 4), &labels, 0.1);
        (v, g.concat(), h)
    })
    .analytic(move |x| {
        let mut g = Vec::new();
        for (r, row) in x.chunks(4).enumerate() {
            let p = softmax(row);
            for c in 0..4 {
                let t = if c == labels[r] { 0.9 + 0.025 } else { 0.025 };
                g.push((p[c] - t) / 3.0);
            }
        }
        g
    })
    .run(POINTS, distinct(12, -3.0, 3.0, 0.01));
}

/// `smooth_l1` with `beta = 0.5`, for `two_slices!`.
fn smooth_l1_b(p: &[f64], t: &[f64]) -> f64 {
    torch::smooth_l1(p, t, 0.5)
}
fn smooth_l1_b_grad(p: &[f64], t: &[f64]) -> (f64, (Vec<f64>, Vec<f64>)) {
    torch::smooth_l1_grad(p, t, 0.5)
}
fn smooth_l1_b_jvp(p: &[f64], t: &[f64], v: (Vec<f64>, Vec<f64>)) -> (f64, f64) {
    torch::smooth_l1_jvp(p, t, 0.5, v)
}
fn smooth_l1_b_grad_into(p: &[f64], t: &[f64], g: (&mut [f64], &mut [f64])) -> f64 {
    torch::smooth_l1_grad_into(p, t, 0.5, g)
}

#[test]
fn pytorch_activations() {
    use torch as to;
    let sech2 = |v: f64| 1.0 - v.tanh().powi(2);
    scalar3!(
        to::elu,
        elu_grad,
        elu_jvp,
        elu_grad_into,
        elu_hessian,
        elu_derivatives,
        0.05,
        3.0,
        |_x: f64| 1.0
    );
    scalar3!(
        to::elu,
        elu_grad,
        elu_jvp,
        elu_grad_into,
        elu_hessian,
        elu_derivatives,
        -3.0,
        -0.05,
        |x: f64| 1.3 * x.exp()
    );
    scalar3!(
        to::selu,
        selu_grad,
        selu_jvp,
        selu_grad_into,
        selu_hessian,
        selu_derivatives,
        -3.0,
        -0.05,
        |x: f64| 1.050_700_987_355_480_5 * 1.673_263_242_354_377_3 * x.exp()
    );
    scalar3!(
        to::selu,
        selu_grad,
        selu_jvp,
        selu_grad_into,
        selu_hessian,
        selu_derivatives,
        0.05,
        3.0,
        |_x: f64| 1.050_700_987_355_480_5
    );
    scalar3!(
        to::gelu_tanh,
        gelu_tanh_grad,
        gelu_tanh_jvp,
        gelu_tanh_grad_into,
        gelu_tanh_hessian,
        gelu_tanh_derivatives,
        -3.0,
        3.0,
        move |x: f64| {
            let c = (2.0 / std::f64::consts::PI).sqrt();
            let u = c * (x + 0.044715 * x.powi(3));
            0.5 * (1.0 + u.tanh()) + 0.5 * x * sech2(u) * c * (1.0 + 3.0 * 0.044715 * x * x)
        }
    );
    scalar3!(
        to::silu,
        silu_grad,
        silu_jvp,
        silu_grad_into,
        silu_hessian,
        silu_derivatives,
        -4.0,
        4.0,
        |x: f64| sigmoid(x) * (1.0 + x * (1.0 - sigmoid(x)))
    );
    scalar3!(
        to::mish,
        mish_grad,
        mish_jvp,
        mish_grad_into,
        mish_hessian,
        mish_derivatives,
        -4.0,
        4.0,
        move |x: f64| {
            let sp = x.exp().ln_1p();
            sp.tanh() + x * sech2(sp) * sigmoid(x)
        }
    );
    scalar3!(
        to::leaky_relu,
        leaky_relu_grad,
        leaky_relu_jvp,
        leaky_relu_grad_into,
        leaky_relu_hessian,
        leaky_relu_derivatives,
        0.1,
        2.0,
        |x: f64| 3.0 * x * x
    );
    scalar3!(
        to::leaky_relu,
        leaky_relu_grad,
        leaky_relu_jvp,
        leaky_relu_grad_into,
        leaky_relu_hessian,
        leaky_relu_derivatives,
        -2.0,
        -0.1,
        |x: f64| 0.03 * x * x
    );
    scalar3!(
        to::softsign,
        softsign_grad,
        softsign_jvp,
        softsign_grad_into,
        softsign_hessian,
        softsign_derivatives,
        0.1,
        3.0,
        |x: f64| 1.0 / (1.0 + x.abs()).powi(2)
    );
    scalar3!(
        to::softsign,
        softsign_grad,
        softsign_jvp,
        softsign_grad_into,
        softsign_hessian,
        softsign_derivatives,
        -3.0,
        -0.1,
        |x: f64| 1.0 / (1.0 + x.abs()).powi(2)
    );
    scalar3!(
        to::tanhshrink,
        tanhshrink_grad,
        tanhshrink_jvp,
        tanhshrink_grad_into,
        tanhshrink_hessian,
        tanhshrink_derivatives,
        -3.0,
        3.0,
        |x: f64| x.tanh().powi(2)
    );
    scalar3!(
        to::logsigmoid,
        logsigmoid_grad,
        logsigmoid_jvp,
        logsigmoid_grad_into,
        logsigmoid_hessian,
        logsigmoid_derivatives,
        0.1,
        5.0,
        |x: f64| sigmoid(-x)
    );
    scalar3!(
        to::logsigmoid,
        logsigmoid_grad,
        logsigmoid_jvp,
        logsigmoid_grad_into,
        logsigmoid_hessian,
        logsigmoid_derivatives,
        -5.0,
        -0.1,
        |x: f64| sigmoid(-x)
    );
    scalar3!(
        to::softplus_threshold,
        softplus_threshold_grad,
        softplus_threshold_jvp,
        softplus_threshold_grad_into,
        softplus_threshold_hessian,
        softplus_threshold_derivatives,
        -4.0,
        2.4,
        |x: f64| sigmoid(2.0 * x)
    );
    scalar3!(
        to::softplus_threshold,
        softplus_threshold_grad,
        softplus_threshold_jvp,
        softplus_threshold_grad_into,
        softplus_threshold_hessian,
        softplus_threshold_derivatives,
        2.6,
        5.0,
        |_x: f64| 1.0
    );
    scalar2!(
        to::hardtanh,
        hardtanh_grad,
        hardtanh_jvp,
        hardtanh_grad_into,
        hardtanh_hessian,
        hardtanh_derivatives,
        away_from(1, -3.0, 3.0, 2.0, 1.0),
        |x: f64| if x.abs() < 1.0 { 2.0 * x } else { x.signum() }
    );
    scalar2!(
        to::relu6,
        relu6_grad,
        relu6_jvp,
        relu6_grad_into,
        relu6_hessian,
        relu6_derivatives,
        away_from(1, -3.0, 9.0, 6.0, 0.0),
        |x: f64| if x < 0.0 {
            0.0
        } else if x < 6.0 {
            2.0 * x
        } else {
            6.0
        }
    );
    scalar2!(
        to::hardswish,
        hardswish_grad,
        hardswish_jvp,
        hardswish_grad_into,
        hardswish_hessian,
        hardswish_derivatives,
        away_from(1, -5.0, 5.0, 6.0, 3.0),
        |x: f64| if x <= -3.0 {
            0.0
        } else if x >= 3.0 {
            1.0
        } else {
            (2.0 * x + 3.0) / 6.0
        }
    );
}

#[test]
fn pytorch_layers() {
    use torch as to;
    let d = 4;
    check_vector(
        "layer_norm",
        POINTS,
        range(3 * d, -2.0, 2.0),
        &|x| to::layer_norm(&x[..d], &x[d..2 * d], &x[2 * d..]),
        &|x, c| {
            let (v, (a, g, b)) = to::layer_norm_vjp(&x[..d], &x[d..2 * d], &x[2 * d..], c.to_vec());
            (v, [a, g, b].concat())
        },
        &|x, t| {
            to::layer_norm_jvp(
                &x[..d],
                &x[d..2 * d],
                &x[2 * d..],
                (t[..d].to_vec(), t[d..2 * d].to_vec(), t[2 * d..].to_vec()),
            )
        },
        Some(&|x| to::layer_norm_jacobian(&x[..d], &x[d..2 * d], &x[2 * d..])),
    );
    Probe::new("layer_norm_loss", |x| {
        to::layer_norm_loss(&x[..4], &x[4..8], &x[8..])
    })
    .grad(|x| {
        let (v, (a, g, b)) = to::layer_norm_loss_grad(&x[..4], &x[4..8], &x[8..]);
        (v, [a, g, b].concat())
    })
    .jvp(|x, t| {
        to::layer_norm_loss_jvp(
            &x[..4],
            &x[4..8],
            &x[8..],
            (t[..4].to_vec(), t[4..8].to_vec(), t[8..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (a, g, b), h) = to::layer_norm_loss_hessian(&x[..4], &x[4..8], &x[8..]);
        (v, [a, g, b].concat(), h)
    })
    .analytic(|x| {
        // y = xhat * gamma + beta; dL/dy = w + 0.2 y; dxhat = dL/dy * gamma;
        // dx = (dxhat - mean(dxhat) - xhat mean(dxhat xhat)) / sd.
        let (xs, gamma, beta) = (&x[..4], &x[4..8], &x[8..]);
        let m = xs.iter().sum::<f64>() / 4.0;
        let var = xs.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 4.0;
        let sd = (var + 1e-5).sqrt();
        let xhat: Flat = xs.iter().map(|v| (v - m) / sd).collect();
        let dy: Flat = (0..4)
            .map(|i| (i as f64 - 1.5) + 0.2 * (xhat[i] * gamma[i] + beta[i]))
            .collect();
        let dxhat: Flat = (0..4).map(|i| dy[i] * gamma[i]).collect();
        let m1 = dxhat.iter().sum::<f64>() / 4.0;
        let m2 = dot(&dxhat, &xhat) / 4.0;
        let dx: Flat = (0..4)
            .map(|i| (dxhat[i] - m1 - xhat[i] * m2) / sd)
            .collect();
        let dgamma: Flat = (0..4).map(|i| dy[i] * xhat[i]).collect();
        [dx, dgamma, dy].concat()
    })
    .run(POINTS, range(12, -2.0, 2.0));
    Probe::new("batch_norm", |x| {
        to::batch_norm(&rows(&x[..12], 3), &x[12..15], &x[15..])
    })
    .grad(|x| {
        let (v, (a, g, b)) = to::batch_norm_grad(&rows(&x[..12], 3), &x[12..15], &x[15..]);
        (v, [a.concat(), g, b].concat())
    })
    .jvp(|x, t| {
        to::batch_norm_jvp(
            &rows(&x[..12], 3),
            &x[12..15],
            &x[15..],
            (rows(&t[..12], 3), t[12..15].to_vec(), t[15..].to_vec()),
        )
    })
    .grad_into(|x| {
        let mut a = rows(&[GARBAGE; 12], 3);
        let (mut g, mut b) = (vec![GARBAGE; 3], vec![GARBAGE; 3]);
        let v = to::batch_norm_grad_into(
            &rows(&x[..12], 3),
            &x[12..15],
            &x[15..],
            (&mut a, &mut g, &mut b),
        );
        (v, [a.concat(), g, b].concat())
    })
    .hessian(|x| {
        let (v, (a, g, b), h) = to::batch_norm_hessian(&rows(&x[..12], 3), &x[12..15], &x[15..]);
        (v, [a.concat(), g, b].concat(), h)
    })
    .run(POINTS, range(18, -1.5, 1.5));
    let attention = |x: &[f64]| (rows(&x[..6], 2), rows(&x[6..12], 2), rows(&x[12..], 3));
    Probe::new("attention", move |x| {
        let (q, k, v) = attention(x);
        to::attention(&q, &k, &v)
    })
    .grad(move |x| {
        let (q, k, v) = attention(x);
        let (val, (a, b, c)) = to::attention_grad(&q, &k, &v);
        (val, [a.concat(), b.concat(), c.concat()].concat())
    })
    .jvp(move |x, t| {
        let (q, k, v) = attention(x);
        let (tq, tk, tv) = attention(t);
        to::attention_jvp(&q, &k, &v, (tq, tk, tv))
    })
    .hessian(move |x| {
        let (q, k, v) = attention(x);
        let (val, (a, b, c), h) = to::attention_hessian(&q, &k, &v);
        (val, [a.concat(), b.concat(), c.concat()].concat(), h)
    })
    .analytic(move |x| {
        // The output weights: out_ic = sum_j p_ij v_jc; dL/dv_jc = sum_i w_ic p_ij; dL/ds_ij =
        // p_ij (u_ij - sum_j' p_ij' u_ij') with u_ij = sum_c w_ic v_jc, s = q k^T / sqrt(2).
        let (q, k, v) = attention(x);
        let scale = 1.0 / 2.0_f64.sqrt();
        let w = |i: usize, c: usize| 1.0 + (i + c) as f64 * 0.3;
        let mut gq = vec![vec![0.0; 2]; 3];
        let mut gk = vec![vec![0.0; 2]; 3];
        let mut gv = vec![vec![0.0; 3]; 3];
        for i in 0..3 {
            let s: Flat = (0..3).map(|j| dot(&q[i], &k[j]) * scale).collect();
            let p = softmax(&s);
            let u: Flat = (0..3)
                .map(|j| (0..3).map(|c| w(i, c) * v[j][c]).sum())
                .collect();
            let pu = dot(&p, &u);
            for j in 0..3 {
                for c in 0..3 {
                    gv[j][c] += w(i, c) * p[j];
                }
                let ds = p[j] * (u[j] - pu) * scale;
                for c in 0..2 {
                    gq[i][c] += ds * k[j][c];
                    gk[j][c] += ds * q[i][c];
                }
            }
        }
        [gq.concat(), gk.concat(), gv.concat()].concat()
    })
    .run(POINTS, range(21, -1.5, 1.5));
    // The max-subtracted softmax stays finite for large scores.
    let big: Flat = (0..21)
        .map(|i| {
            if i < 12 {
                30.0 * (i as f64 - 5.5)
            } else {
                0.1 * i as f64
            }
        })
        .collect();
    let (q, k, v) = attention(&big);
    let (val, (gq, _, _)) = to::attention_grad(&q, &k, &v);
    assert!(
        val.is_finite() && gq.concat().iter().all(|g| g.is_finite()),
        "attention at large scores"
    );
}

/// Sizes of the recurrent cells: input, hidden.
const INPUT: usize = 2;
const HIDDEN: usize = 3;

#[test]
fn pytorch_recurrent_cells() {
    use torch as to;
    // GRU: x (2), h (3), w (9 x 2), u (9 x 3), b (9): 2 + 3 + 18 + 27 + 9 = 59 inputs.
    let (i, h) = (INPUT, HIDDEN);
    let split = move |x: &[f64]| {
        let mut o = 0;
        let mut take = |n: usize| {
            let s = x[o..o + n].to_vec();
            o += n;
            s
        };
        let (xs, hs) = (take(i), take(h));
        let w = rows(&take(3 * h * i), i);
        let u = rows(&take(3 * h * h), h);
        (xs, hs, w, u, take(3 * h))
    };
    let total = i + h + 3 * h * i + 3 * h * h + 3 * h;
    check_vector(
        "gru_cell",
        POINTS,
        range(total, -1.0, 1.0),
        &|x| {
            let (xs, hs, w, u, b) = split(x);
            let mut out = vec![GARBAGE; h];
            to::gru_cell(&xs, &hs, &w, &u, &b, &mut out);
            out
        },
        &|x, c| {
            let (xs, hs, w, u, b) = split(x);
            let mut out = vec![GARBAGE; h];
            let (gx, gh, gw, gu, gb) = to::gru_cell_vjp(&xs, &hs, &w, &u, &b, &mut out, c);
            (out, [gx, gh, gw.concat(), gu.concat(), gb].concat())
        },
        &|x, t| {
            let (xs, hs, w, u, b) = split(x);
            let (tx, th, tw, tu, tb) = split(t);
            let mut out = vec![GARBAGE; h];
            let mut d = vec![GARBAGE; h];
            to::gru_cell_jvp(&xs, &hs, &w, &u, &b, &mut out, (tx, th, tw, tu, tb), &mut d);
            (out, d)
        },
        Some(&|x| {
            let (xs, hs, w, u, b) = split(x);
            to::gru_cell_jacobian(&xs, &hs, &w, &u, &b, &mut vec![GARBAGE; h])
        }),
    );
    // The GRU cell by hand: h' = (1 - z) n + z h.
    let x0 = Lcg::new(5).vec(total, -1.0, 1.0);
    let (xs, hs, w, u, b) = split(&x0);
    let mut out = vec![0.0; h];
    to::gru_cell(&xs, &hs, &w, &u, &b, &mut out);
    for k in 0..h {
        let r = sigmoid(b[k] + dot(&w[k], &xs) + dot(&u[k], &hs));
        let z = sigmoid(b[h + k] + dot(&w[h + k], &xs) + dot(&u[h + k], &hs));
        let n = (b[2 * h + k] + dot(&w[2 * h + k], &xs) + r * dot(&u[2 * h + k], &hs)).tanh();
        assert_near(
            out[k],
            (1.0 - z) * n + z * hs[k],
            1e-14,
            0.0,
            "gru_cell value",
        );
    }
    // LSTM: x (2), h (3), c (3), w (12 x 5), b (12); two outputs, checked stacked (h', c').
    let lsplit = move |x: &[f64]| {
        let (xs, hs, cs) = (
            x[..i].to_vec(),
            x[i..i + h].to_vec(),
            x[i + h..i + 2 * h].to_vec(),
        );
        let o = i + 2 * h;
        let w = rows(&x[o..o + 4 * h * (i + h)], i + h);
        (xs, hs, cs, w, x[o + 4 * h * (i + h)..].to_vec())
    };
    let ltotal = i + 2 * h + 4 * h * (i + h) + 4 * h;
    check_vector(
        "lstm_cell",
        POINTS,
        range(ltotal, -1.0, 1.0),
        &|x| {
            let (xs, hs, cs, w, b) = lsplit(x);
            let (mut ho, mut co) = (vec![GARBAGE; h], vec![GARBAGE; h]);
            to::lstm_cell(&xs, &hs, &cs, &w, &b, &mut ho, &mut co);
            [ho, co].concat()
        },
        &|x, c| {
            let (xs, hs, cs, w, b) = lsplit(x);
            let (mut ho, mut co) = (vec![GARBAGE; h], vec![GARBAGE; h]);
            let (gx, gh, gc, gw, gb) =
                to::lstm_cell_vjp(&xs, &hs, &cs, &w, &b, &mut ho, &mut co, &c[..h], &c[h..]);
            ([ho, co].concat(), [gx, gh, gc, gw.concat(), gb].concat())
        },
        &|x, t| {
            let (xs, hs, cs, w, b) = lsplit(x);
            let (tx, th, tc, tw, tb) = lsplit(t);
            let (mut ho, mut co) = (vec![GARBAGE; h], vec![GARBAGE; h]);
            let (mut dh, mut dc) = (vec![GARBAGE; h], vec![GARBAGE; h]);
            to::lstm_cell_jvp(
                &xs,
                &hs,
                &cs,
                &w,
                &b,
                &mut ho,
                &mut co,
                (tx, th, tc, tw, tb),
                &mut dh,
                &mut dc,
            );
            ([ho, co].concat(), [dh, dc].concat())
        },
        None,
    );
    // Two LSTM steps over a sequence, differentiated in the weights, to second order.
    let xs_seq = rows(&[0.5, -0.3, 0.8, 0.2], 2);
    let wsplit = move |x: &[f64]| {
        (
            rows(&x[..4 * h * (i + h)], i + h),
            x[4 * h * (i + h)..].to_vec(),
        )
    };
    let nw = 4 * h * (i + h) + 4 * h;
    let (s1, s2, s3) = (xs_seq.clone(), xs_seq.clone(), xs_seq.clone());
    Probe::new("lstm_sequence", move |x| {
        let (w, b) = wsplit(x);
        to::lstm_sequence(&xs_seq, &w, &b, h)
    })
    .grad(move |x| {
        let (w, b) = wsplit(x);
        let (v, (gw, gb)) = to::lstm_sequence_grad(&s1, &w, &b, h);
        (v, [gw.concat(), gb].concat())
    })
    .jvp(move |x, t| {
        let (w, b) = wsplit(x);
        let (tw, tb) = wsplit(t);
        to::lstm_sequence_jvp(&s2, &w, &b, h, (tw, tb))
    })
    .hessian(move |x| {
        let (w, b) = wsplit(x);
        let (v, (gw, gb), hm) = to::lstm_sequence_hessian(&s3, &w, &b, h);
        (v, [gw.concat(), gb].concat(), hm)
    })
    .run(5, range(nw, -0.8, 0.8));
    // An Elman RNN over a sequence, stopped at `len` by a `break`.
    let seq = [0.4, -0.7, 1.1, 0.2, -0.5];
    for len in [0usize, 1, 3, 5] {
        Probe::new("rnn_until", move |x| {
            to::rnn_until(&seq, &x[..3], &rows(&x[3..], 3), len)
        })
        .grad(move |x| {
            let (v, (gw, gu)) = to::rnn_until_grad(&seq, &x[..3], &rows(&x[3..], 3), len);
            (v, [gw, gu.concat()].concat())
        })
        .jvp(move |x, t| {
            to::rnn_until_jvp(
                &seq,
                &x[..3],
                &rows(&x[3..], 3),
                len,
                (t[..3].to_vec(), rows(&t[3..], 3)),
            )
        })
        .grad_into(move |x| {
            let mut gw = vec![GARBAGE; 3];
            let mut gu = rows(&[GARBAGE; 9], 3);
            let v =
                to::rnn_until_grad_into(&seq, &x[..3], &rows(&x[3..], 3), len, (&mut gw, &mut gu));
            (v, [gw, gu.concat()].concat())
        })
        .hessian(move |x| {
            let (v, (gw, gu), hm) = to::rnn_until_hessian(&seq, &x[..3], &rows(&x[3..], 3), len);
            (v, [gw, gu.concat()].concat(), hm)
        })
        .run(POINTS, range(12, -1.0, 1.0));
    }
}

#[test]
fn kernels_control_flow() {
    use kernels as ke;
    slice2!(
        ke::insertion_sort_mid,
        insertion_sort_mid_grad,
        insertion_sort_mid_jvp,
        insertion_sort_mid_grad_into,
        insertion_sort_mid_hessian
    )
    .analytic(|x| {
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap());
        let mut g = vec![0.0; x.len()];
        let (lo, mid, hi) = (order[0], order[x.len() / 2], order[x.len() - 1]);
        g[mid] += 2.0 * x[mid];
        g[lo] += 0.5;
        g[hi] -= x[hi].cos();
        g
    })
    .run(POINTS, distinct(7, -2.0, 2.0, 0.01));
    one(
        "newton_sqrt",
        ke::newton_sqrt,
        ke::newton_sqrt_grad,
        ke::newton_sqrt_jvp,
        ke::newton_sqrt_grad_into,
    )
    .hessian(hess1(ke::newton_sqrt_hessian, ke::newton_sqrt_derivatives))
    .analytic(|x| vec![0.5 / x[0].sqrt()])
    .run(POINTS, range(1, 0.1, 20.0));
    // The iterates' derivative converges to the derivative of the limit: second order too.
    let (_, _, h) = ke::newton_sqrt_hessian(4.0);
    assert_near(
        h[0][0],
        -0.25 * 4.0_f64.powf(-1.5),
        1e-9,
        0.0,
        "newton_sqrt''",
    );
    Probe::new("fixed_point_cos", |x| ke::fixed_point_cos(x[0]))
        .grad(|x| {
            let (v, d) = ke::fixed_point_cos_grad(x[0]);
            (v, vec![d])
        })
        .jvp(|x, t| ke::fixed_point_cos_jvp(x[0], t[0]))
        .grad_into(|x| {
            let mut d = GARBAGE;
            let v = ke::fixed_point_cos_grad_into(x[0], &mut d);
            (v, vec![d])
        })
        // x = cos(a x): dx/da = -x sin(a x) / (1 + a sin(a x)).
        .analytic(|x| {
            let a = x[0];
            let p = ke::fixed_point_cos(a);
            vec![-p * (a * p).sin() / (1.0 + a * (a * p).sin())]
        })
        .run(POINTS, range(1, 0.2, 1.2));
    nested!(
        "power_iteration",
        3,
        ke::power_iteration,
        ke::power_iteration_grad,
        ke::power_iteration_jvp,
        ke::power_iteration_grad_into,
        ke::power_iteration_hessian
    )
    .run(POINTS, |r: &mut Lcg| {
        let mut x = r.vec(9, -0.3, 0.3);
        x[0] += 3.0;
        x[4] += 1.0;
        x[8] += 0.5;
        x
    });
    for steps in [1usize, 4] {
        Probe::new("rk4", move |x| ke::rk4(x[0], x[1], 0.1, steps))
            .grad(move |x| {
                let (v, (a, b)) = ke::rk4_grad(x[0], x[1], 0.1, steps);
                (v, vec![a, b])
            })
            .jvp(move |x, t| ke::rk4_jvp(x[0], x[1], 0.1, steps, (t[0], t[1])))
            .grad_into(move |x| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = ke::rk4_grad_into(x[0], x[1], 0.1, steps, (&mut a, &mut b));
                (v, vec![a, b])
            })
            .hessian(move |x| {
                let (v, (a, b), h) = ke::rk4_hessian(x[0], x[1], 0.1, steps);
                (v, vec![a, b], h)
            })
            .run(POINTS, range(2, -1.5, 1.5));
    }
    for n in [4usize, 10] {
        Probe::new("simpson", move |x| ke::simpson(x[0], 1.3, n))
            .grad(move |x| {
                let (v, d) = ke::simpson_grad(x[0], 1.3, n);
                (v, vec![d])
            })
            .jvp(move |x, t| ke::simpson_jvp(x[0], 1.3, n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = ke::simpson_hessian(x[0], 1.3, n);
                (v, vec![d], h)
            })
            // d/da of Simpson's sum is Simpson's sum of -x^2 f.
            .analytic(move |x| {
                let a = x[0];
                let h = 1.0 / n as f64;
                let mut s = -(-a).exp() * 1.3_f64.cos();
                for i in 1..n {
                    let t = i as f64 * h;
                    let f = -t * t * (-a * t * t).exp() * (1.3 * t).cos();
                    s += if i % 2 == 1 { 4.0 * f } else { 2.0 * f };
                }
                vec![s * h / 3.0]
            })
            .run(POINTS, range(1, 0.1, 3.0));
        let name = format!("simpson {n}");
        let mut rng = Lcg::new(seed_of(&name));
        for _ in 0..10 {
            let a = rng.uniform(0.1, 3.0);
            let ds = ke::simpson_derivatives(a, 1.3, n);
            for k in 1..4 {
                let fd = fd1(&|y| ke::simpson_derivatives(y, 1.3, n)[k - 1], a, 1e-6);
                assert_near(
                    ds[k],
                    fd,
                    1e-5,
                    ds[k].abs(),
                    &format!("{name}: derivative {k}"),
                );
            }
        }
    }
    // Thomas: a diagonally dominant tridiagonal system, the Jacobian over (lower, diag, upper, d).
    let m = 5;
    check_vector(
        "thomas",
        POINTS,
        move |r: &mut Lcg| {
            let mut x = r.vec(4 * m, -1.0, 1.0);
            for i in 0..m {
                x[m + i] += 3.5;
            }
            x
        },
        &|x| ke::thomas(&x[..m], &x[m..2 * m], &x[2 * m..3 * m], &x[3 * m..]),
        &|x, c| {
            let (v, (a, b, u, d)) = ke::thomas_vjp(
                &x[..m],
                &x[m..2 * m],
                &x[2 * m..3 * m],
                &x[3 * m..],
                c.to_vec(),
            );
            (v, [a, b, u, d].concat())
        },
        &|x, t| {
            ke::thomas_jvp(
                &x[..m],
                &x[m..2 * m],
                &x[2 * m..3 * m],
                &x[3 * m..],
                (
                    t[..m].to_vec(),
                    t[m..2 * m].to_vec(),
                    t[2 * m..3 * m].to_vec(),
                    t[3 * m..].to_vec(),
                ),
            )
        },
        Some(&|x| ke::thomas_jacobian(&x[..m], &x[m..2 * m], &x[2 * m..3 * m], &x[3 * m..])),
    );
    // It solves the system, and `lower[0]`, `upper[m - 1]` are never read: zero columns.
    let x = Lcg::new(3).vec(4 * m, -1.0, 1.0);
    let diag: Flat = x[m..2 * m].iter().map(|v| v + 3.5).collect();
    let sol = ke::thomas(&x[..m], &diag, &x[2 * m..3 * m], &x[3 * m..]);
    for i in 0..m {
        let mut r = diag[i] * sol[i];
        if i > 0 {
            r += x[i] * sol[i - 1];
        }
        if i + 1 < m {
            r += x[2 * m + i] * sol[i + 1];
        }
        assert_near(r, x[3 * m + i], 1e-13, 0.0, "thomas solves");
    }
    let j = ke::thomas_jacobian(&x[..m], &diag, &x[2 * m..3 * m], &x[3 * m..]);
    assert!(
        j.iter().all(|row| row[0] == 0.0 && row[3 * m - 1] == 0.0),
        "thomas: unread entries"
    );
    for threshold in [0.5, 2.0, 100.0] {
        Probe::new("early_return_sum", move |x| {
            ke::early_return_sum(x, threshold)
        })
        .grad(move |x| ke::early_return_sum_grad(x, threshold))
        .jvp(move |x, t| ke::early_return_sum_jvp(x, threshold, t.to_vec()))
        .grad_into(move |x| {
            let mut g = vec![GARBAGE; x.len()];
            let v = ke::early_return_sum_grad_into(x, threshold, &mut g);
            (v, g)
        })
        .hessian(move |x| ke::early_return_sum_hessian(x, threshold))
        .analytic(move |x| {
            let mut g = vec![0.0; x.len()];
            let mut s = 0.0;
            for i in 0..x.len() {
                s += x[i] * x[i];
                if s > threshold {
                    let r = s.sqrt();
                    for k in 0..=i {
                        g[k] = x[k] / r * x[i];
                    }
                    g[i] += r;
                    return g;
                }
            }
            x.iter().map(|v| -2.0 * v).collect()
        })
        .run(POINTS, move |r: &mut Lcg| loop {
            let x = r.vec(5, -1.5, 1.5);
            let ok = (0..5).all(|i| {
                let s: f64 = x[..=i].iter().map(|v| v * v).sum();
                (s - threshold).abs() > 0.01
            });
            if ok {
                break x;
            }
        });
    }
    slice2!(
        ke::product_until_negative,
        product_until_negative_grad,
        product_until_negative_jvp,
        product_until_negative_grad_into,
        product_until_negative_hessian
    )
    .analytic(|x| {
        let k = x.iter().position(|&v| v < 0.0).unwrap_or(x.len());
        let mut g = vec![0.0; x.len()];
        for i in 0..k {
            g[i] = (0..k).filter(|&j| j != i).map(|j| x[j]).product();
        }
        for i in k..x.len() {
            g[i] = x[i].exp();
        }
        g
    })
    .run(POINTS, away_from(6, -0.8, 2.0, 10.0, 0.0));
    slice2!(
        ke::positive_prefix,
        positive_prefix_grad,
        positive_prefix_jvp,
        positive_prefix_grad_into,
        positive_prefix_hessian
    )
    .analytic(|x| {
        let k = x.iter().position(|&v| v <= 0.0).unwrap_or(x.len());
        (0..x.len())
            .map(|i| if i < k { (i as f64 + 1.0) / x[i] } else { 0.0 })
            .collect()
    })
    .run(POINTS, away_from(6, -0.5, 2.0, 10.0, 0.0));
    for bound in [0.5, 3.0, 50.0] {
        Probe::new("labelled_break", move |x| {
            ke::labelled_break(&rows(x, 3), bound)
        })
        .grad(move |x| {
            let (v, g) = ke::labelled_break_grad(&rows(x, 3), bound);
            (v, g.concat())
        })
        .jvp(move |x, t| ke::labelled_break_jvp(&rows(x, 3), bound, rows(t, 3)))
        .hessian(move |x| {
            let (v, g, h) = ke::labelled_break_hessian(&rows(x, 3), bound);
            (v, g.concat(), h)
        })
        .analytic(move |x| {
            let mut g = vec![0.0; x.len()];
            let mut s = 0.0;
            let mut last = 0;
            for k in 0..x.len() {
                s += x[k] * x[k];
                g[k] = 2.0 * x[k];
                last = k;
                if s > bound {
                    break;
                }
            }
            g[last] += x[last].cos();
            g
        })
        .run(POINTS, move |r: &mut Lcg| loop {
            let x = r.vec(6, -1.5, 1.5);
            let ok = (0..6).all(|i| {
                let s: f64 = x[..=i].iter().map(|v| v * v).sum();
                (s - bound).abs() > 0.01
            });
            if ok {
                break x;
            }
        });
    }
    Probe::new("leaky_recurrence", |x| {
        ke::leaky_recurrence(&x[..6], x[6], x[7])
    })
    .grad(|x| {
        let (v, (g, a, b)) = ke::leaky_recurrence_grad(&x[..6], x[6], x[7]);
        (v, [g, vec![a, b]].concat())
    })
    .jvp(|x, t| ke::leaky_recurrence_jvp(&x[..6], x[6], x[7], (t[..6].to_vec(), t[6], t[7])))
    .hessian(|x| {
        let (v, (g, a, b), h) = ke::leaky_recurrence_hessian(&x[..6], x[6], x[7]);
        (v, [g, vec![a, b]].concat(), h)
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let mut x = r.vec(8, -1.0, 1.0);
        x[6] = 0.5 + 0.4 * x[6];
        x[7] = 0.2 + 0.1 * x[7];
        let mut h: f64 = 0.3;
        let mut ok = true;
        for t in 0..6 {
            if h.abs() < 0.01 {
                ok = false;
            }
            h = if h > 0.0 { x[6] * h } else { x[7] * h } + x[t];
        }
        if ok {
            break x;
        }
    });
    one(
        "loop_break_value",
        ke::loop_break_value,
        ke::loop_break_value_grad,
        ke::loop_break_value_jvp,
        ke::loop_break_value_grad_into,
    )
    .hessian(hess1(
        ke::loop_break_value_hessian,
        ke::loop_break_value_derivatives,
    ))
    .analytic(|x| {
        let (mut y, mut dy) = (x[0], 1.0);
        for _ in 0..5 {
            dy = y.cos() * dy + 0.5;
            y = y.sin() + 0.5 * x[0];
        }
        vec![2.0 * y * dy]
    })
    .run(POINTS, range(1, -2.0, 2.0));
    check_third(
        "loop_break_value",
        ke::loop_break_value_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    for n in [0usize, 1, 6] {
        Probe::new("logistic_map", move |x| ke::logistic_map(x[0], n))
            .grad(move |x| {
                let (v, d) = ke::logistic_map_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| ke::logistic_map_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = ke::logistic_map_hessian(x[0], n);
                (v, vec![d], h)
            })
            .analytic(move |x| {
                let (mut p, mut dp) = (0.3, 0.0);
                for _ in 0..n {
                    let next = x[0] * p * (1.0 - p);
                    dp = p * (1.0 - p) + x[0] * (1.0 - 2.0 * p) * dp;
                    p = next;
                }
                vec![dp]
            })
            .run(POINTS, range(1, 2.5, 3.5));
        let name = format!("logistic_map {n}");
        let mut rng = Lcg::new(seed_of(&name));
        for _ in 0..10 {
            let r = rng.uniform(2.5, 3.5);
            let ds = ke::logistic_map_derivatives(r, n);
            for k in 1..4 {
                let fd = fd1(&|y| ke::logistic_map_derivatives(y, n)[k - 1], r, 1e-6);
                assert_near(
                    ds[k],
                    fd,
                    1e-5,
                    ds[k].abs(),
                    &format!("{name}: derivative {k}"),
                );
            }
        }
    }
    slice2!(
        ke::cumtrapz_sq,
        cumtrapz_sq_grad,
        cumtrapz_sq_jvp,
        cumtrapz_sq_grad_into,
        cumtrapz_sq_hessian
    )
    .run(POINTS, range(6, -2.0, 2.0));
    Probe::new("synthetic_division", |x| {
        ke::synthetic_division(&x[..5], x[5])
    })
    .grad(|x| {
        let (v, (p, r)) = ke::synthetic_division_grad(&x[..5], x[5]);
        (v, [p, vec![r]].concat())
    })
    .jvp(|x, t| ke::synthetic_division_jvp(&x[..5], x[5], (t[..5].to_vec(), t[5])))
    .hessian(|x| {
        let (v, (p, r), h) = ke::synthetic_division_hessian(&x[..5], x[5]);
        (v, [p, vec![r]].concat(), h)
    })
    .run(POINTS, range(6, -1.5, 1.5));
    nested!(
        "expm2",
        2,
        ke::expm2,
        ke::expm2_grad,
        ke::expm2_jvp,
        ke::expm2_grad_into,
        ke::expm2_hessian
    )
    .analytic(|x| {
        // For a diagonal-free check: d tr(exp A) / dA = exp(A)^T; the 0.5 e01 term by differences
        // of a series written here.
        let exp = |a: &[f64]| -> Flat {
            let mut e = [1.0, 0.0, 0.0, 1.0];
            let mut term = [1.0, 0.0, 0.0, 1.0];
            for k in 1..30 {
                let t = term;
                for i in 0..2 {
                    for j in 0..2 {
                        term[i * 2 + j] = (t[i * 2] * a[j] + t[i * 2 + 1] * a[2 + j]) / k as f64;
                    }
                }
                for i in 0..4 {
                    e[i] += term[i];
                }
            }
            e.to_vec()
        };
        let e = exp(x);
        let mut g = vec![e[0], e[2], e[1], e[3]];
        let h = 1e-6;
        for i in 0..4 {
            let mut p = x.to_vec();
            let mut m = x.to_vec();
            p[i] += h;
            m[i] -= h;
            g[i] += 0.5 * (exp(&p)[1] - exp(&m)[1]) / (2.0 * h);
        }
        g
    })
    .run(POINTS, range(4, -1.0, 1.0));
}

#[test]
fn kernels_calls_with_arrays_and_data() {
    use kernels as ke;
    check_vector(
        "normalize",
        POINTS,
        range(4, -2.0, 2.0),
        &|x| ke::normalize(x),
        &|x, c| ke::normalize_vjp(x, c.to_vec()),
        &|x, t| ke::normalize_jvp(x, t.to_vec()),
        Some(&|x| ke::normalize_jacobian(x)),
    );
    check_vector(
        "stats",
        POINTS,
        range(5, -2.0, 2.0),
        &|x| {
            let (m, s) = ke::stats(x);
            vec![m, s]
        },
        &|x, c| {
            let ((m, s), g) = ke::stats_vjp(x, (c[0], c[1]));
            (vec![m, s], g)
        },
        &|x, t| {
            let ((m, s), (dm, ds)) = ke::stats_jvp(x, t.to_vec());
            (vec![m, s], vec![dm, ds])
        },
        None,
    );
    let data = rows(&Lcg::new(17).vec(12, -1.0, 1.0), 4);
    let (d1, d2, d3, d4) = (data.clone(), data.clone(), data.clone(), data.clone());
    Probe::new("composed", move |x| ke::composed(x, &data))
        .grad(move |x| ke::composed_grad(x, &d1))
        .jvp(move |x, t| ke::composed_jvp(x, &d2, t.to_vec()))
        .grad_into(move |x| {
            let mut g = vec![GARBAGE; x.len()];
            let v = ke::composed_grad_into(x, &d3, &mut g);
            (v, g)
        })
        .hessian(move |x| ke::composed_hessian(x, &d4))
        .run(POINTS, range(4, -2.0, 2.0));
}

#[test]
fn structs_and_methods() {
    // Dense: w (2 x 3, flat), b (2).
    let dense = |p: &[f64]| Dense {
        w: p[..6].to_vec(),
        b: p[6..8].to_vec(),
        outputs: 2,
    };
    let x = [0.4, -0.9, 1.3];
    let target = [0.2, -0.1];
    Probe::new("Dense::loss", move |p| dense(p).loss(&x, &target))
        .grad(move |p| {
            let (v, g) = dense(p).loss_grad(&x, &target);
            assert_eq!(g.outputs, 2, "a #[no_grad] field is copied");
            (v, g.to_flat())
        })
        .jvp(move |p, t| dense(p).loss_jvp(&x, &target, dense(t)))
        .analytic(move |p| {
            let mut g = vec![0.0; 8];
            for i in 0..2 {
                let y = (p[6 + i] + dot(&p[3 * i..3 * i + 3], &x)).tanh();
                let dz = (y - target[i]) * (1.0 - y * y);
                for j in 0..3 {
                    g[3 * i + j] = dz * x[j];
                }
                g[6 + i] = dz;
            }
            g
        })
        .run(POINTS, range(8, -1.0, 1.0));
    // forward_into: the output parameter's Jacobian in (self, x) by its vjp and jvp.
    check_vector(
        "Dense::forward_into",
        POINTS,
        range(11, -1.0, 1.0),
        &|p| {
            let mut y = vec![GARBAGE; 2];
            dense(p).forward_into(&p[8..], &mut y);
            y
        },
        &|p, c| {
            let mut y = vec![GARBAGE; 2];
            let (gs, gx) = dense(p).forward_into_vjp(&p[8..], &mut y, c);
            (y, [gs.to_flat(), gx].concat())
        },
        &|p, t| {
            let mut y = vec![GARBAGE; 2];
            let mut d = vec![GARBAGE; 2];
            dense(p).forward_into_jvp(&p[8..], &mut y, (dense(t), t[8..].to_vec()), &mut d);
            (y, d)
        },
        None,
    );
    let fixed = dense(&[0.3, -0.5, 0.8, 1.1, 0.2, -0.4, 0.1, -0.2]);
    let (f1, f2, f3, f4) = (fixed.clone(), fixed.clone(), fixed.clone(), fixed.clone());
    Probe::new("Dense::input_energy", move |x| f1.input_energy(x))
        .grad(move |x| f2.input_energy_grad(x))
        .jvp(move |x, t| f3.input_energy_jvp(x, t.to_vec()))
        .hessian(move |x| f4.input_energy_hessian(x))
        .analytic(move |x| {
            let mut g = vec![0.0; 3];
            for i in 0..2 {
                let y = (fixed.b[i] + dot(&fixed.w[3 * i..3 * i + 3], x)).tanh();
                for j in 0..3 {
                    g[j] += 2.0 * y * (1.0 - y * y) * fixed.w[3 * i + j];
                }
            }
            g
        })
        .run(POINTS, range(3, -1.5, 1.5));
    // Gru: six vectors of 2 units and a bias array.
    let gru = |p: &[f64]| Gru {
        wz: p[0..2].to_vec(),
        uz: p[2..4].to_vec(),
        wr: p[4..6].to_vec(),
        ur: p[6..8].to_vec(),
        wh: p[8..10].to_vec(),
        uh: p[10..12].to_vec(),
        bias: [p[12], p[13], p[14]],
    };
    let xs = [0.5, -0.8, 1.2, 0.1];
    Probe::new("Gru::run", move |p| gru(p).run(&xs))
        .grad(move |p| {
            let (v, g) = gru(p).run_grad(&xs);
            (v, g.to_flat())
        })
        .jvp(move |p, t| gru(p).run_jvp(&xs, gru(t)))
        .hessian(move |p| {
            let (v, g, h) = gru(p).run_hessian(&xs);
            (v, g.to_flat(), h)
        })
        .run(POINTS, range(15, -1.0, 1.0));
    // The step in (self, h), at each unit.
    for unit in 0..2 {
        Probe::new("Gru::step", move |p| gru(p).step(0.7, p[15], unit))
            .grad(move |p| {
                let (v, (g, dh)) = gru(p).step_grad(0.7, p[15], unit);
                (v, [g.to_flat(), vec![dh]].concat())
            })
            .jvp(move |p, t| gru(p).step_jvp(0.7, p[15], unit, (gru(t), t[15])))
            .run(POINTS, range(16, -1.0, 1.0));
    }
    // LayerNorm: the struct and the input both active, `eps` a constant.
    let ln = |p: &[f64]| LayerNorm {
        gamma: p[..4].to_vec(),
        beta: p[4..8].to_vec(),
        eps: 1e-3,
    };
    Probe::new("layer_norm_readout", move |p| {
        layer_norm_readout(&ln(p), &p[8..])
    })
    .grad(move |p| {
        let (v, (g, gx)) = layer_norm_readout_grad(&ln(p), &p[8..]);
        assert_eq!(g.eps, 1e-3, "a #[no_grad] field is copied");
        (v, [g.to_flat(), gx].concat())
    })
    .jvp(move |p, t| layer_norm_readout_jvp(&ln(p), &p[8..], (ln(t), t[8..].to_vec())))
    .hessian(move |p| {
        let (v, (g, gx), h) = layer_norm_readout_hessian(&ln(p), &p[8..]);
        (v, [g.to_flat(), gx].concat(), h)
    })
    .run(POINTS, range(12, -1.5, 1.5));
}

#[test]
fn chainrules_rrules() {
    use rrules as rr;
    let (xs, ys) = ([0.0, 1.0, -0.5, 2.0], [0.5, -1.0, 1.5, 0.3]);
    Probe::new("distances", move |p| rr::distances(p, &xs, &ys))
        .grad(move |p| rr::distances_grad(p, &xs, &ys))
        .jvp(move |p, t| rr::distances_jvp(p, &xs, &ys, t.to_vec()))
        .grad_into(move |p| {
            let mut g = vec![GARBAGE; 2];
            let v = rr::distances_grad_into(p, &xs, &ys, &mut g);
            (v, g)
        })
        .hessian(move |p| rr::distances_hessian(p, &xs, &ys))
        .analytic(move |p| {
            let mut g = vec![0.0; 2];
            for i in 0..4 {
                let (dx, dy) = (p[0] - xs[i], p[1] - ys[i]);
                let r = dx.hypot(dy);
                g[0] += 3.0 * r * dx;
                g[1] += 3.0 * r * dy;
            }
            g
        })
        .run(POINTS, range(2, -2.0, 2.0));
    let data = rows(&Lcg::new(31).vec(15, -1.5, 1.5), 3);
    let labels = [1.0, 0.0, 0.0, 1.0, 1.0];
    let (d1, d2, d3, d4) = (data.clone(), data.clone(), data.clone(), data.clone());
    Probe::new("logistic_xent", move |w| {
        rr::logistic_xent(w, &data, &labels)
    })
    .grad(move |w| rr::logistic_xent_grad(w, &d1, &labels))
    .jvp(move |w, t| rr::logistic_xent_jvp(w, &d2, &labels, t.to_vec()))
    .hessian(move |w| rr::logistic_xent_hessian(w, &d3, &labels))
    .analytic(move |w| {
        let mut g = vec![0.0; 3];
        for i in 0..5 {
            let p = sigmoid(dot(w, &d4[i]));
            for j in 0..3 {
                g[j] += (p - labels[i]) * d4[i][j];
            }
        }
        g
    })
    .run(POINTS, range(3, -2.0, 2.0));
    Probe::new("lse_rows", |z| rr::lse_rows(z, 3))
        .grad(|z| rr::lse_rows_grad(z, 3))
        .jvp(|z, t| rr::lse_rows_jvp(z, 3, t.to_vec()))
        .grad_into(|z| {
            let mut g = vec![GARBAGE; z.len()];
            let v = rr::lse_rows_grad_into(z, 3, &mut g);
            (v, g)
        })
        .hessian(|z| rr::lse_rows_hessian(z, 3))
        .analytic(|z| {
            let mut g = Vec::new();
            for (r, row) in z.chunks(3).enumerate() {
                let mut p = softmax(row);
                p[r % 3] -= 1.0;
                g.extend(p);
            }
            g
        })
        .run(POINTS, range(9, -3.0, 3.0));
    slice2!(
        rr::tail_mass,
        tail_mass_grad,
        tail_mass_jvp,
        tail_mass_grad_into,
        tail_mass_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|v| -(-v * v / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt())
            .collect()
    })
    .run(POINTS, range(4, -3.0, 3.0));
}

#[test]
fn sweeps_stress() {
    use sweeps as sw;
    for t in [-10.0, 0.5, 10.0] {
        check_vector(
            "first_heavy_row",
            POINTS,
            move |r: &mut Lcg| loop {
                let x = r.vec(9, -1.0, 1.0);
                if (0..3).all(|i| (x[3 * i] + x[3 * i + 1] + x[3 * i + 2] - t).abs() > 0.01) {
                    break x;
                }
            },
            &|x| sw::first_heavy_row(square::<3>(x), t).to_vec(),
            &|x, c| {
                let (v, g) = sw::first_heavy_row_vjp(square::<3>(x), t, c.try_into().unwrap());
                (v.to_vec(), g.concat())
            },
            &|x, d| {
                let (v, dv) = sw::first_heavy_row_jvp(square::<3>(x), t, square::<3>(d));
                (v.to_vec(), dv.to_vec())
            },
            Some(&|x| sw::first_heavy_row_jacobian(square::<3>(x), t)),
        );
    }
    let dominant = |r: &mut Lcg| {
        let mut x = r.vec(9, -0.5, 0.5);
        for i in 0..3 {
            x[4 * i] += if i == 1 { -2.5 } else { 2.5 };
        }
        x
    };
    nested!(
        "det_gauss_jordan",
        3,
        sw::det_gauss_jordan,
        sw::det_gauss_jordan_grad,
        sw::det_gauss_jordan_jvp,
        sw::det_gauss_jordan_grad_into,
        sw::det_gauss_jordan_hessian
    )
    .run(POINTS, dominant);
    for sweeps in [0usize, 1, 3] {
        Probe::new("smooth_in_place", move |x| {
            sw::smooth_in_place(rows(x, 3), sweeps)
        })
        .grad(move |x| {
            let (v, g) = sw::smooth_in_place_grad(rows(x, 3), sweeps);
            (v, g.concat())
        })
        .jvp(move |x, t| sw::smooth_in_place_jvp(rows(x, 3), sweeps, rows(t, 3)))
        .hessian(move |x| {
            let (v, g, h) = sw::smooth_in_place_hessian(rows(x, 3), sweeps);
            (v, g.concat(), h)
        })
        .run(POINTS, range(9, -1.5, 1.5));
    }
    slice2!(
        sw::stack_horner,
        stack_horner_grad,
        stack_horner_jvp,
        stack_horner_grad_into,
        stack_horner_hessian
    )
    .analytic(|x| {
        let k = x.iter().position(|&v| v < 0.0).unwrap_or(x.len());
        // acc = sum_j 0.5^j (x_j^2 + 1) over j < k.
        (0..x.len())
            .map(|j| {
                if j < k {
                    0.5_f64.powi(j as i32) * 2.0 * x[j]
                } else {
                    0.0
                }
            })
            .collect()
    })
    .run(POINTS, away_from(6, -0.5, 2.0, 10.0, 0.0));
    for n in [1usize, 2, 5, 8] {
        slice2!(
            sw::split_sum,
            split_sum_grad,
            split_sum_jvp,
            split_sum_grad_into,
            split_sum_hessian
        )
        .run(POINTS, range(n, -2.0, 2.0));
    }
    Probe::new("windows_through_calls", |x| {
        sw::windows_through_calls(&x[..5], x[5], x[6])
    })
    .grad(|x| {
        let (v, (g, a, b)) = sw::windows_through_calls_grad(&x[..5], x[5], x[6]);
        (v, [g, vec![a, b]].concat())
    })
    .jvp(|x, t| sw::windows_through_calls_jvp(&x[..5], x[5], x[6], (t[..5].to_vec(), t[5], t[6])))
    .hessian(|x| {
        let (v, (g, a, b), h) = sw::windows_through_calls_hessian(&x[..5], x[5], x[6]);
        (v, [g, vec![a, b]].concat(), h)
    })
    .analytic(|x| {
        let (n, h) = (5, 2);
        let c = |i: usize| if i < h { x[5] } else { x[6] };
        let mut g = vec![0.0; 7];
        for i in 0..n {
            let nx = x[(i + 1) % n];
            g[i] += 2.0 * c(i) * x[i] * nx;
            g[(i + 1) % n] += c(i) * x[i] * x[i];
            g[if i < h { 5 } else { 6 }] += x[i] * x[i] * nx;
        }
        g
    })
    .run(POINTS, range(7, -1.5, 1.5));
    slice2!(
        sw::closure_match_steps,
        closure_match_steps_grad,
        closure_match_steps_jvp,
        closure_match_steps_grad_into,
        closure_match_steps_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for i in (0..x.len()).step_by(2) {
            g[i] = match i {
                0 => 2.0 * x[i],
                1..=3 => x[i].cos() * x[i] * x[i] + 2.0 * x[i] * x[i].sin(),
                _ => x[i].exp(),
            };
        }
        for i in (1..x.len()).step_by(2) {
            if x[i] > 1.5 {
                break;
            }
            g[i] = 2.0 * (x[i] - 0.5);
        }
        g
    })
    .run(POINTS, away_from(7, -2.0, 2.0, 10.0, 1.5));
    Probe::new("shadowed_arrays", |x| {
        sw::shadowed_arrays([x[0], x[1], x[2]])
    })
    .grad(|x| {
        let (v, g) = sw::shadowed_arrays_grad([x[0], x[1], x[2]]);
        (v, g.to_vec())
    })
    .jvp(|x, t| sw::shadowed_arrays_jvp([x[0], x[1], x[2]], [t[0], t[1], t[2]]))
    .grad_into(|x| {
        let mut g = [GARBAGE; 3];
        let v = sw::shadowed_arrays_grad_into([x[0], x[1], x[2]], &mut g);
        (v, g.to_vec())
    })
    .hessian(|x| {
        let (v, g, h) = sw::shadowed_arrays_hessian([x[0], x[1], x[2]]);
        (v, g.to_vec(), h)
    })
    .run(POINTS, range(3, -1.0, 1.0));
    check_vector(
        "row_norms",
        POINTS,
        range(8, -2.0, 2.0),
        &|x| sw::row_norms(&rows(x, 4)),
        &|x, c| {
            let (v, g) = sw::row_norms_vjp(&rows(x, 4), c.to_vec());
            (v, g.concat())
        },
        &|x, t| sw::row_norms_jvp(&rows(x, 4), rows(t, 4)),
        Some(&|x| sw::row_norms_jacobian(&rows(x, 4))),
    );
    one(
        "total_variation",
        sw::total_variation,
        sw::total_variation_grad,
        sw::total_variation_jvp,
        sw::total_variation_grad_into,
    )
    .hessian(hess1(
        sw::total_variation_hessian,
        sw::total_variation_derivatives,
    ))
    .run(POINTS, range(1, -2.0, 2.0));
    check_third(
        "total_variation",
        sw::total_variation_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    slice2!(
        sw::float_while,
        float_while_grad,
        float_while_jvp,
        float_while_grad_into,
        float_while_hessian
    )
    .run(POINTS, |r: &mut Lcg| loop {
        // Away from the points where the trip count changes.
        let x = r.vec(3, -1.5, 1.0);
        let mut t = 0.0;
        let mut ok = true;
        for i in 0..8 {
            t += x[i % 3].exp() * 0.3;
            if (t - 2.0).abs() < 0.01 {
                ok = false;
            }
        }
        if ok {
            break x;
        }
    });
}

#[test]
fn rust_idioms() {
    use idioms as id;
    slice2!(
        id::fold_max_map_exp,
        fold_max_map_exp_grad,
        fold_max_map_exp_jvp,
        fold_max_map_exp_grad_into,
        fold_max_map_exp_hessian
    )
    .analytic(|x| {
        let k = (0..x.len()).fold(0, |k, i| if x[i] > x[k] { i } else { k });
        let mut g: Flat = x.iter().map(|v| v.exp()).collect();
        g[k] += 1.0;
        g
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        id::range_product,
        range_product_grad,
        range_product_jvp,
        range_product_grad_into,
        range_product_hessian
    )
    .analytic(|x| {
        let hi = (0..x.len()).fold(0, |k, i| if x[i] > x[k] { i } else { k });
        let lo = (0..x.len()).fold(0, |k, i| if x[i] < x[k] { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[hi] += 1.0 + x[lo];
        g[lo] += -1.0 + x[hi];
        g
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    two_slices!(
        "rev_skip_take",
        4,
        id::rev_skip_take,
        id::rev_skip_take_grad,
        id::rev_skip_take_jvp,
        id::rev_skip_take_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = id::rev_skip_take_hessian(&x[..4], &x[4..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        // s0 = sum (i + 1) x_i w_i, then s = s * 0.5 + v over x reversed: s0 / 16 + sum x_i 0.5^i.
        let mut g = vec![0.0; 8];
        for i in 0..4 {
            let w = (i as f64 + 1.0) / 16.0;
            g[i] = w * x[4 + i] + 0.5_f64.powi(i as i32);
            g[4 + i] = w * x[i];
        }
        g[1] += 2.0 * x[1];
        g[2] += 2.0 * x[2];
        g
    })
    .run(POINTS, range(8, -2.0, 2.0));
    // The incoming `y` is not read (`*y = 0.0` comes before the loop's `+=`): `G` is `x`'s alone
    // (API.md), and a NaN going in shows nowhere.
    check_vector(
        "norm_out",
        POINTS,
        range(3, -2.0, 2.0),
        &|x| {
            let mut y = GARBAGE;
            id::norm_out(x, &mut y);
            vec![y]
        },
        &|x, c| {
            let mut y = GARBAGE;
            let gx = id::norm_out_vjp(x, &mut y, c[0]);
            (vec![y], gx)
        },
        &|x, t| {
            let (mut y, mut d) = (GARBAGE, GARBAGE);
            id::norm_out_jvp(x, &mut y, t.to_vec(), &mut d);
            (vec![y], vec![d])
        },
        Some(&|x| {
            let mut y = GARBAGE;
            id::norm_out_jacobian(x, &mut y)
        }),
    );
    Probe::new("tuple_param", |x| id::tuple_param((x[0], x[1]), x[2]))
        .grad(|x| {
            let (v, ((a, b), q)) = id::tuple_param_grad((x[0], x[1]), x[2]);
            (v, vec![a, b, q])
        })
        .jvp(|x, t| id::tuple_param_jvp((x[0], x[1]), x[2], ((t[0], t[1]), t[2])))
        .hessian(|x| {
            let (v, ((a, b), q), h) = id::tuple_param_hessian((x[0], x[1]), x[2]);
            (v, vec![a, b, q], h)
        })
        .analytic(|x| vec![x[1].sin() + x[2], x[0] * x[1].cos(), x[0]])
        .run(POINTS, range(3, -2.0, 2.0));
    // `f32`: against the `f64` formula to `f32` precision, and central differences in `f32`.
    let mut rng = Lcg::new(41);
    for _ in 0..POINTS {
        let x: Vec<f32> = rng.vec(4, -2.0, 2.0).iter().map(|&v| v as f32).collect();
        let (v, g) = id::tanh_weighted_f32_grad(&x);
        assert_eq!(v, id::tanh_weighted_f32(&x));
        for i in 0..4 {
            let xi = x[i] as f64;
            let formula = xi.tanh() + xi * (1.0 - xi.tanh().powi(2));
            assert_near(g[i] as f64, formula, 1e-5, 1.0, "tanh_weighted_f32");
        }
        let t: Vec<f32> = rng.vec(4, -1.0, 1.0).iter().map(|&v| v as f32).collect();
        let (_, d) = id::tanh_weighted_f32_jvp(&x, t.clone());
        let expected: f32 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert_near(
            d as f64,
            expected as f64,
            1e-5,
            1.0,
            "tanh_weighted_f32 jvp",
        );
    }
    slice2!(
        id::slice_order3,
        slice_order3_grad,
        slice_order3_jvp,
        slice_order3_grad_into,
        slice_order3_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        g[0] = x[1].exp() + 3.0 * x[0] * x[0];
        g[1] = x[0] * x[1].exp();
        g
    })
    .run(POINTS, range(3, -1.5, 1.5));
    slice2!(
        id::nested_item,
        nested_item_grad,
        nested_item_jvp,
        nested_item_grad_into,
        nested_item_hessian
    )
    .analytic(|x| x.iter().map(|v| 3.0 * v * v).collect())
    .run(POINTS, range(4, -2.0, 2.0));
    slice2!(
        id::copy_modify_call,
        copy_modify_call_grad,
        copy_modify_call_jvp,
        copy_modify_call_grad_into,
        copy_modify_call_hessian
    )
    .analytic(|x| {
        // y1 = (3x0 + x0^2, x1 + x1^2, x2 + x2^2); y2 = y1 + y1^2.
        let y1 = [
            3.0 * x[0] + x[0] * x[0],
            x[1] + x[1] * x[1],
            x[2] + x[2] * x[2],
        ];
        let d1 = [3.0 + 2.0 * x[0], 1.0 + 2.0 * x[1], 1.0 + 2.0 * x[2]];
        let y2: Flat = y1.iter().map(|v| v + v * v).collect();
        let d2: Flat = (0..3).map(|i| (1.0 + 2.0 * y1[i]) * d1[i]).collect();
        vec![d2[0], d2[1] * y2[2], y2[1] * d2[2]]
    })
    .run(POINTS, range(3, -1.5, 1.5));
    slice2!(
        id::matrix_row_copy,
        matrix_row_copy_grad,
        matrix_row_copy_jvp,
        matrix_row_copy_grad_into,
        matrix_row_copy_hessian
    )
    .analytic(|x| vec![1.0 + x[1] + x[1] * x[1], x[0] + 2.0 * x[0] * x[1]])
    .run(POINTS, range(2, -2.0, 2.0));
}

/// `f_hvp` against `f_hessian` times the same direction, and its value and gradient against `f_grad`.
#[track_caller]
fn check_hvp(
    name: &str,
    sample: impl Fn(&mut Lcg) -> Flat,
    grad: &dyn Fn(&[f64]) -> (f64, Flat),
    hvp: &dyn Fn(&[f64], &[f64]) -> (f64, Flat, Flat),
    hessian: &dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>),
) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..10 {
        let x = sample(&mut rng);
        let v = rng.vec(x.len(), -1.0, 1.0);
        let (val, g) = grad(&x);
        let (hval, hg, hv) = hvp(&x, &v);
        let (_, _, h) = hessian(&x);
        assert_near(hval, val, 1e-12, 0.0, &format!("{name}: f_hvp's value"));
        assert_vec_near(&hg, &g, 1e-10, &format!("{name}: f_hvp's gradient"));
        let expected: Flat = h.iter().map(|row| dot(row, &v)).collect();
        assert_vec_near(&hv, &expected, 1e-10, &format!("{name}: f_hvp against H v"));
    }
}

#[test]
fn hessian_vector_products() {
    use difftests as dt;
    use torch as to;
    use zygote as zy;
    check_hvp(
        "rosenbrock_2",
        range(5, -1.5, 1.5),
        &|x| dt::rosenbrock_2_grad(x),
        &|x, v| dt::rosenbrock_2_hvp(x, v.to_vec()),
        &|x| dt::rosenbrock_2_hessian(x),
    );
    check_hvp(
        "ackley",
        range(4, -1.5, 1.5),
        &|x| dt::ackley_grad(x),
        &|x, v| dt::ackley_hvp(x, v.to_vec()),
        &|x| dt::ackley_hessian(x),
    );
    check_hvp(
        "sort_weighted",
        distinct(5, -2.0, 2.0, 0.01),
        &|x| zy::sort_weighted_grad(x),
        &|x, v| zy::sort_weighted_hvp(x, v.to_vec()),
        &|x| zy::sort_weighted_hessian(x),
    );
    check_hvp(
        "logdet_chol",
        |r: &mut Lcg| {
            let b = r.vec(4, -1.0, 1.0);
            vec![
                b[0] * b[0] + 2.0,
                b[0] * b[1],
                b[0] * b[1],
                b[1] * b[1] + b[2] * b[2] + 2.0,
            ]
        },
        &|x| {
            let (v, g) = zy::logdet_chol_grad(&rows(x, 2));
            (v, g.concat())
        },
        &|x, v| {
            let (val, g, hv) = zy::logdet_chol_hvp(&rows(x, 2), rows(v, 2));
            (val, g.concat(), hv.concat())
        },
        &|x| {
            let (v, g, h) = zy::logdet_chol_hessian(&rows(x, 2));
            (v, g.concat(), h)
        },
    );
    check_hvp(
        "det3",
        range(9, -2.0, 2.0),
        &|x| {
            let (v, g) = dt::det3_grad(square::<3>(x));
            (v, g.concat())
        },
        &|x, v| {
            let (val, g, hv) = dt::det3_hvp(square::<3>(x), square::<3>(v));
            (val, g.concat(), hv.concat())
        },
        &|x| {
            let (v, g, h) = dt::det3_hessian(square::<3>(x));
            (v, g.concat(), h)
        },
    );
    check_hvp(
        "attention",
        range(21, -1.0, 1.0),
        &|x| {
            let (v, (a, b, c)) =
                to::attention_grad(&rows(&x[..6], 2), &rows(&x[6..12], 2), &rows(&x[12..], 3));
            (v, [a.concat(), b.concat(), c.concat()].concat())
        },
        &|x, t| {
            let (v, (a, b, c), (ha, hb, hc)) = to::attention_hvp(
                &rows(&x[..6], 2),
                &rows(&x[6..12], 2),
                &rows(&x[12..], 3),
                (rows(&t[..6], 2), rows(&t[6..12], 2), rows(&t[12..], 3)),
            );
            (
                v,
                [a.concat(), b.concat(), c.concat()].concat(),
                [ha.concat(), hb.concat(), hc.concat()].concat(),
            )
        },
        &|x| {
            let (v, (a, b, c), h) =
                to::attention_hessian(&rows(&x[..6], 2), &rows(&x[6..12], 2), &rows(&x[12..], 3));
            (v, [a.concat(), b.concat(), c.concat()].concat(), h)
        },
    );
    let gru = |p: &[f64]| Gru {
        wz: p[0..2].to_vec(),
        uz: p[2..4].to_vec(),
        wr: p[4..6].to_vec(),
        ur: p[6..8].to_vec(),
        wh: p[8..10].to_vec(),
        uh: p[10..12].to_vec(),
        bias: [p[12], p[13], p[14]],
    };
    let xs = [0.5, -0.8, 1.2];
    check_hvp(
        "Gru::run",
        range(15, -1.0, 1.0),
        &|p| {
            let (v, g) = gru(p).run_grad(&xs);
            (v, g.to_flat())
        },
        &|p, t| {
            let (v, g, hv) = gru(p).run_hvp(&xs, gru(t));
            (v, g.to_flat(), hv.to_flat())
        },
        &|p| {
            let (v, g, h) = gru(p).run_hessian(&xs);
            (v, g.to_flat(), h)
        },
    );
    check_hvp(
        "windows_through_calls",
        range(7, -1.5, 1.5),
        &|x| {
            let (v, (g, a, b)) = sweeps::windows_through_calls_grad(&x[..5], x[5], x[6]);
            (v, [g, vec![a, b]].concat())
        },
        &|x, t| {
            let (v, (g, a, b), (hg, ha, hb)) = sweeps::windows_through_calls_hvp(
                &x[..5],
                x[5],
                x[6],
                (t[..5].to_vec(), t[5], t[6]),
            );
            (v, [g, vec![a, b]].concat(), [hg, vec![ha, hb]].concat())
        },
        &|x| {
            let (v, (g, a, b), h) = sweeps::windows_through_calls_hessian(&x[..5], x[5], x[6]);
            (v, [g, vec![a, b]].concat(), h)
        },
    );
}

#[test]
fn parameter_forms() {
    use forms as fo;
    let nest = |x: &[f64]| [[x[0], x[1], x[2]], [x[3], x[4], x[5]]];
    Probe::new("ref_nested", move |x| fo::ref_nested(&nest(x)))
        .grad(move |x| {
            let (v, g) = fo::ref_nested_grad(&nest(x));
            (v, g.concat())
        })
        .jvp(move |x, t| fo::ref_nested_jvp(&nest(x), nest(t)))
        .hessian(move |x| {
            let (v, g, h) = fo::ref_nested_hessian(&nest(x));
            (v, g.concat(), h)
        })
        .analytic(|x| (0..6).map(|k| 2.0 * x[5 - k]).collect())
        .run(POINTS, range(6, -2.0, 2.0));
    Probe::new("by_value_params", |x| {
        fo::by_value_params(x[..3].to_vec(), rows(&x[3..9], 2), &x[9..].to_vec())
    })
    .grad(|x| {
        let (v, (a, m, r)) =
            fo::by_value_params_grad(x[..3].to_vec(), rows(&x[3..9], 2), &x[9..].to_vec());
        (v, [a, m.concat(), r].concat())
    })
    .jvp(|x, t| {
        fo::by_value_params_jvp(
            x[..3].to_vec(),
            rows(&x[3..9], 2),
            &x[9..].to_vec(),
            (t[..3].to_vec(), rows(&t[3..9], 2), t[9..].to_vec()),
        )
    })
    .hessian(|x| {
        let (v, (a, m, r), h) =
            fo::by_value_params_hessian(x[..3].to_vec(), rows(&x[3..9], 2), &x[9..].to_vec());
        (v, [a, m.concat(), r].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 12];
        for i in 0..3 {
            g[i] = x[3 + 2 * i];
            g[3 + 2 * i] = x[i];
            g[4 + 2 * i] = x[9 + i];
            g[9 + i] = x[4 + 2 * i];
        }
        g
    })
    .run(POINTS, range(12, -2.0, 2.0));
    slice2!(
        fo::windows_chunks,
        windows_chunks_grad,
        windows_chunks_jvp,
        windows_chunks_grad_into,
        windows_chunks_hessian
    )
    .analytic(|x| {
        let n = x.len();
        let mut g = vec![0.0; n];
        for i in 0..n - 1 {
            let d = 2.0 * (x[i + 1] - x[i]);
            g[i + 1] += d;
            g[i] -= d;
        }
        for c in (0..n).step_by(3) {
            let last = (c + 2).min(n - 1);
            g[c] += x[last];
            g[last] += x[c];
        }
        for i in 0..n {
            if x[i] > 0.0 {
                g[i] += 2.0 * x[i];
            }
        }
        g
    })
    .run(POINTS, away_from(7, -2.0, 2.0, 10.0, 0.0));
    two_slices!(
        "consts_and_closure",
        3,
        fo::consts_and_closure,
        fo::consts_and_closure_grad,
        fo::consts_and_closure_jvp,
        fo::consts_and_closure_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = fo::consts_and_closure_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 6];
        for i in 0..3 {
            let b = x[3 + i] * x[i] + std::f64::consts::E;
            g[i] = x[3 + i] / b;
            g[3 + i] = x[i] / b;
        }
        g
    })
    .run(POINTS, range(6, -1.2, 1.2));
    for k in 0..4 {
        check_vector(
            "pick",
            POINTS,
            away_from(3, -2.0, 2.0, 10.0, 0.0),
            &|x| fo::pick(x, k).to_vec(),
            &|x, c| {
                let (v, g) = fo::pick_vjp(x, k, [c[0], c[1]]);
                (v.to_vec(), g)
            },
            &|x, t| {
                let (v, d) = fo::pick_jvp(x, k, t.to_vec());
                (v.to_vec(), d.to_vec())
            },
            Some(&|x| fo::pick_jacobian(x, k)),
        );
    }
    let outer = |p: &[f64]| fo::Outer {
        inner: fo::Inner {
            a: p[..3].to_vec(),
            c: p[3],
        },
        scale: p[4],
    };
    let x = [0.7, -1.1, 0.4];
    Probe::new("Outer::energy", move |p| outer(p).energy(&x))
        .grad(move |p| {
            let (v, g) = outer(p).energy_grad(&x);
            (v, g.to_flat())
        })
        .jvp(move |p, t| outer(p).energy_jvp(&x, outer(t)))
        .hessian(move |p| {
            let (v, g, h) = outer(p).energy_hessian(&x);
            (v, g.to_flat(), h)
        })
        .analytic(move |p| {
            let s = p[3] + (0..3).map(|i| (p[i] * x[i]).sin()).sum::<f64>();
            let mut g = vec![0.0; 5];
            for i in 0..3 {
                g[i] = p[4] * 2.0 * s * (p[i] * x[i]).cos() * x[i];
            }
            g[3] = p[4] * 2.0 * s + 1.0;
            g[4] = s * s;
            g
        })
        .run(POINTS, range(5, -1.5, 1.5));
    two_slices!(
        "zip_bare",
        3,
        fo::zip_bare,
        fo::zip_bare_grad,
        fo::zip_bare_jvp,
        fo::zip_bare_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = fo::zip_bare_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let mut g = vec![0.0; 6];
        for i in 0..3 {
            g[i] = x[3 + i] * x[3 + i];
            g[3 + i] = 2.0 * x[i] * x[3 + i];
        }
        g
    })
    .run(POINTS, range(6, -2.0, 2.0));
}

#[test]
fn mutation_and_restore() {
    use mutation as mu;
    slice2!(
        mu::fd_inside,
        fd_inside_grad,
        fd_inside_jvp,
        fd_inside_grad_into,
        fd_inside_hessian
    )
    .analytic(|x| {
        let h = 1e-3;
        let dg = |t: f64| t.sin() + t * t.cos();
        let g = |t: f64| t * t.sin();
        x.iter()
            .map(|&v| {
                let d = (g(v + h) - g(v - h)) / (2.0 * h);
                2.0 * d * (dg(v + h) - dg(v - h)) / (2.0 * h)
            })
            .collect()
    })
    .run(POINTS, range(4, -2.0, 2.0));
    two(
        "tuple_swaps",
        mu::tuple_swaps,
        mu::tuple_swaps_grad,
        mu::tuple_swaps_jvp,
        mu::tuple_swaps_grad_into,
    )
    .hessian(hess2(mu::tuple_swaps_hessian))
    .analytic(|x| {
        // (a, b) <- (b, a b + 0.5), with the tangents carried along both inputs.
        let (mut a, mut b) = (x[0], x[1]);
        let (mut da, mut db) = ([1.0, 0.0], [0.0, 1.0]);
        for _ in 0..3 {
            let ndb = [da[0] * b + a * db[0], da[1] * b + a * db[1]];
            let nb = a * b + 0.5;
            a = b;
            da = db;
            b = nb;
            db = ndb;
        }
        vec![da[0] + 2.0 * db[0], da[1] + 2.0 * db[1]]
    })
    .run(POINTS, range(2, -1.2, 1.2));
    for n in [1usize, 2, 5, 8] {
        slice2!(
            mu::cyclic_reduction,
            cyclic_reduction_grad,
            cyclic_reduction_jvp,
            cyclic_reduction_grad_into,
            cyclic_reduction_hessian
        )
        .run(POINTS, range(n, -1.2, 1.2));
    }
    scalar2!(
        mu::bisect_then_use,
        bisect_then_use_grad,
        bisect_then_use_jvp,
        bisect_then_use_grad_into,
        bisect_then_use_hessian,
        bisect_then_use_derivatives,
        range(1, -2.0, 2.0),
        |a: f64| 2.0_f64.cbrt() + 2.0 * a
    );
}

#[test]
fn struct_outputs_at_order_2() {
    let net = |p: &[f64], relu: bool| LeakyNet {
        w: p[..6].to_vec(),
        b: [p[6], p[7]],
        n: 3,
        relu,
    };
    let xs = vec![vec![0.5, -1.0], vec![1.5, 0.3], vec![-0.4, 0.9]];
    for relu in [false, true] {
        let (x1, x2, x3, x4) = (xs.clone(), xs.clone(), xs.clone(), xs.clone());
        Probe::new("LeakyNet::loss_twice", move |p| {
            net(p, relu).loss_twice(&x1)
        })
        .grad(move |p| {
            let (v, g) = net(p, relu).loss_twice_grad(&x2);
            assert_eq!((g.n, g.relu), (3, relu), "#[no_grad] fields copied");
            (v, g.to_flat())
        })
        .jvp(move |p, t| net(p, relu).loss_twice_jvp(&x3, net(t, relu)))
        .hessian(move |p| {
            let (v, g, h) = net(p, relu).loss_twice_hessian(&x4);
            (v, g.to_flat(), h)
        })
        .run(POINTS, |r: &mut Lcg| loop {
            // Away from the leaky kink z = 0.
            let p = r.vec(8, -1.0, 1.0);
            let ok = (0..3).all(|i| {
                [[0.5, -1.0], [1.5, 0.3], [-0.4, 0.9]].iter().all(|x| {
                    let z = p[6 + i % 2] + p[2 * i] * x[0] + p[2 * i + 1] * x[1];
                    z.abs() > 0.01
                })
            });
            if ok {
                break p;
            }
        });
    }
}
