//! A trust probe written as a new user would: the ideas of HIPS/autograd's test suite ported to Rust
//! (`test_scalar_ops.py`, `test_binary_ops.py`, the element-wise and reduction ops of `test_numpy.py` and
//! `test_systematic.py` written as loops over slices, `test_wrappers.py`'s grad-of-grad, Hessian and
//! vector-Jacobian cases, `test_graphs.py`'s fan-out, third derivatives and reused variables), and the
//! shapes numeric Rust users write that `probe_ported.rs` did not cover: softmax cross-entropy in several
//! spellings, log-likelihoods, small physics energies, Horner polynomials, `while` loops on float
//! conditions, early returns inside loops, `match`, shadowing, tuples, arrays, `Vec` locals, output
//! parameters, calls across modules, methods of a `Differentiable` struct and custom gradients at first
//! and second order.
//!
//! Every derivative is checked against oracles that share no code with the macro or `autodiff-core`:
//! central differences written in this file and derivatives worked out by hand where they are short, at
//! many points drawn by a small deterministic generator. `f_jvp` is checked against `f_grad` along a
//! random tangent, `f_grad_into` against `f_grad` with its buffers filled with NaN first, `f_hessian`
//! against central differences of `f_grad`, and `f_derivatives` of `order = 3` against central
//! differences of its own lower entries.

// The forms users (and the ported numpy code) write are what these programs test: indexed loops,
// explicit returns, `let` then return, `a = a * 3.0`, a manual clamp, a swap through a temporary,
// `n % 2 == 0`, copies element by element; the probe's function-pointer types spell out the generated
// signatures.
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
    clippy::manual_is_multiple_of
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

// ---------------------------------------------------------------------------------------------------
// autograd tests/test_scalar_ops.py and test_binary_ops.py: one rule at a time, scaled by 3 as there.
// ---------------------------------------------------------------------------------------------------

pub mod scalar_ops {
    use autodiff::differentiable;

    /// The names of `unary`'s operations, in the order of its `match`.
    pub const UNARY: [&str; 31] = [
        "abs",
        "sin",
        "sign",
        "exp",
        "log",
        "log2",
        "log10",
        "log1p",
        "expm1",
        "exp2",
        "neg",
        "cos",
        "tan",
        "cosh",
        "sinh",
        "arccos",
        "arcsin",
        "arctan",
        "arccosh",
        "arcsinh",
        "arctanh",
        "sqrt",
        "cbrt",
        "power_arg0",
        "power_arg1",
        "power_arg1_zero",
        "reciprocal",
        "rad2deg",
        "deg2rad",
        "sinc",
        "power_zero_exponent",
    ];

    /// autograd's one-argument `test_scalar_ops`, scaled by 3 as there, chosen by `op` (one function
    /// rather than thirty: each is a rule, and each function costs CI a twin at `order = 2`).
    #[differentiable(order = 2, wrt(x))]
    pub fn unary(x: f64, op: usize) -> f64 {
        match op {
            0 => 3.0 * x.abs(),
            // `np.sign`: a zero derivative away from 0; beside `x` so the gradient is not all zero.
            1 => 3.0 * x.sin(),
            2 => 3.0 * x.signum() + x,
            3 => 3.0 * x.exp(),
            4 => 3.0 * x.ln(),
            5 => 3.0 * x.log2(),
            6 => 3.0 * x.log10(),
            7 => 3.0 * x.ln_1p(),
            8 => 3.0 * x.exp_m1(),
            9 => 3.0 * x.exp2(),
            10 => 3.0 * -x,
            11 => 3.0 * x.cos(),
            12 => 3.0 * x.tan(),
            13 => 3.0 * x.cosh(),
            14 => 3.0 * x.sinh(),
            15 => 3.0 * x.acos(),
            16 => 3.0 * x.asin(),
            17 => 3.0 * x.atan(),
            18 => 3.0 * x.acosh(),
            19 => 3.0 * x.asinh(),
            20 => 3.0 * x.atanh(),
            21 => 3.0 * x.sqrt(),
            22 => 3.0 * x.cbrt(),
            // `np.power(x, y)` for a fixed `y`.
            23 => x.powf(2.7),
            // `np.power(c, y)` for a fixed base.
            24 => {
                let base: f64 = 1.9;
                base.powf(x)
            }
            // `np.power(0., y)`: zero for `y > 0`, and so is its derivative (JAX takes `log(0)` as 0).
            25 => {
                let base: f64 = 0.0;
                base.powf(x) + x
            }
            26 => x.recip(),
            27 => 3.0 * x.to_degrees(),
            28 => 3.0 * f64::to_radians(x),
            // `np.sinc`, the normalised one.
            29 => {
                let px = std::f64::consts::PI * x;
                3.0 * (px.sin() / px)
            }
            // `np.power(x, 0.)`: autograd issue 116 asks for zero derivatives at `x = 0`.
            _ => x.powf(0.0),
        }
    }

    /// The names of `binary`'s operations, in the order of its `match`.
    pub const BINARY: [&str; 9] = [
        "power",
        "modulo",
        "divide",
        "multiply",
        "arctan2",
        "hypot",
        "logaddexp2",
        "log_base",
        "fma",
    ];

    /// autograd's `test_binary_ops` (both arguments active), chosen by `op`.
    #[differentiable(order = 2, wrt(x, y))]
    pub fn binary(x: f64, y: f64, op: usize) -> f64 {
        match op {
            0 => x.powf(y),
            // `np.mod` for positive operands: d/dx = 1, d/dy = -trunc(x / y).
            1 => x % y,
            2 => x / y,
            3 => x * y,
            4 => x.atan2(y),
            5 => x.hypot(y),
            // `np.logaddexp2`.
            6 => {
                let m = x.max(y);
                m + ((x - m).exp2() + (y - m).exp2()).log2()
            }
            // `log` in a base that is itself active.
            7 => x.log(y),
            _ => x.mul_add(y, x * x),
        }
    }

    /// `np.maximum` and `np.minimum` of two active values.
    #[differentiable(order = 2)]
    pub fn max_min(x: f64, y: f64) -> f64 {
        x.max(y) * 2.0 + x.min(y)
    }
}

// ---------------------------------------------------------------------------------------------------
// autograd tests/test_graphs.py and test_wrappers.py: fan-out, reuse, higher derivatives.
// ---------------------------------------------------------------------------------------------------

pub mod graphs {
    use autodiff::differentiable;

    /// `test_grad_fanout` and `test_third_derivative`: the same variable used twice.
    #[differentiable(order = 3)]
    pub fn fanout(x: f64) -> f64 {
        (x.sin() + x.sin()).sin()
    }

    /// `test_third_derivative_other_args`.
    #[differentiable(order = 3)]
    pub fn fanout_two(x: f64, y: f64) -> f64 {
        (x.sin() + y.sin()).sin()
    }

    /// `test_grad_const`: a function that ignores its input.
    #[differentiable(order = 2)]
    pub fn constant(_x: f64) -> f64 {
        1.0
    }

    /// The input read, then overwritten by a value of itself, then read again.
    #[differentiable(order = 3)]
    pub fn assignment_then_reuse(x: f64) -> f64 {
        let mut y = x * x;
        let z = y;
        y = y * x;
        y + z * y
    }

    /// `test_hess_vector_prod`: `sin(x . r)` for a constant `r`.
    #[differentiable(order = 2, wrt(x))]
    pub fn sin_dot(x: &[f64], r: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * r[i];
        }
        s.sin()
    }

    /// `test_hess_vector_prod`'s `vector_product`: `sin(v . grad sin_dot(x))`, the gradient written out.
    #[differentiable(order = 2)]
    pub fn vector_product(x: &[f64], v: &[f64]) -> f64 {
        let r = [0.3, -1.2, 0.7, 2.1];
        let mut xr = 0.0;
        for i in 0..4 {
            xr += x[i] * r[i];
        }
        let c = xr.cos();
        let mut s = 0.0;
        for i in 0..4 {
            s += v[i] * c * r[i];
        }
        s.sin()
    }

    /// `test_enclosing_scope_ref`: a closure that captures the active input.
    #[differentiable(order = 2)]
    pub fn enclosing_scope_ref(x: f64) -> f64 {
        let inner = |y: f64| x * y;
        x * inner(2.0)
    }

    /// `test_enclosing_scope_ref_2`, and the closure called twice.
    #[differentiable(order = 2)]
    pub fn enclosing_scope_twice(x: f64) -> f64 {
        let inner = |y: f64| y * x;
        inner(x) * inner(2.0)
    }

    /// `test_mutating_outgrad`: element-wise temporaries in local `Vec`s.
    #[differentiable(order = 2)]
    pub fn mutating_outgrad(a: &[f64]) -> f64 {
        let n = a.len();
        let mut b = vec![0.0; n];
        let mut c = vec![0.0; n];
        let mut d = vec![0.0; n];
        let mut e = vec![0.0; n];
        for i in 0..n {
            b[i] = a[i] + 1.0;
            c[i] = b[i] + 1.5;
            d[i] = a[i] + b[i];
            e[i] = d[i] + c[i];
        }
        let mut s = 0.0;
        for i in 0..n {
            s += e[i] * e[i];
        }
        s
    }

    /// `test_mutating_outgrad_from_indexing`: one element of a temporary fans out to all.
    #[differentiable(order = 2)]
    pub fn mutating_outgrad_from_indexing(a: &[f64]) -> f64 {
        let n = a.len();
        let mut b = vec![0.0; n];
        for i in 0..n {
            b[i] = a[i] + 1.0;
        }
        let c = b[0] + 1.5;
        let mut s = 0.0;
        for i in 0..n {
            let d = a[i] + b[i];
            let e = d + c;
            s += e * e * a[i];
        }
        s
    }

    /// `test_complex_separate_real_and_imaginary`, the parts as two slices.
    #[differentiable(order = 2)]
    pub fn separate_parts(re: &[f64], im: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..re.len() {
            s += re[i].abs().powf(1.4) + im[i].abs().powf(1.3);
        }
        s
    }

    /// `test_singleton_array_output`: the sum of `sin` over a matrix.
    #[differentiable(order = 2)]
    pub fn matrix_sin_sum(m: [[f64; 3]; 3]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                s += m[i][j].sin();
            }
        }
        s
    }

    /// `np.sum(np.sin(x), axis=0)` squared: column sums of a `Vec<Vec<f64>>` kept in a local.
    #[differentiable(order = 2)]
    pub fn axis0_sums(m: &[Vec<f64>]) -> f64 {
        let cols = m[0].len();
        let mut sums = vec![0.0; cols];
        for row in 0..m.len() {
            for j in 0..cols {
                sums[j] += m[row][j].sin();
            }
        }
        let mut s = 0.0;
        for j in 0..cols {
            s += sums[j] * sums[j] * (j as f64 + 1.0);
        }
        s
    }

    /// `test_return_both`: `3 x^3.2`.
    #[differentiable(order = 2)]
    pub fn return_both(x: f64) -> f64 {
        3.0 * x.powf(3.2)
    }

    /// `test_value_and_grad`: `sum(sin(x)^2)` as an iterator chain.
    #[differentiable(order = 2)]
    pub fn sum_sin_sq(x: &[f64]) -> f64 {
        x.iter().map(|v| v.sin().powi(2)).sum()
    }

    /// `test_hessian`: `x . H x` for a constant `H`, whose Hessian is `H + H^T`.
    #[differentiable(order = 2, wrt(x))]
    pub fn quadratic(x: &[f64], h: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let mut hx = 0.0;
            for j in 0..x.len() {
                hx += h[i][j] * x[j];
            }
            s += x[i] * hx;
        }
        s
    }

    /// `test_multigrad`: many arguments, only two of them active.
    #[differentiable(order = 2, wrt(d, b))]
    pub fn complicated(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64) -> f64 {
        a + b.sin() + c.cosh() + d.cos() + e.tan() + f + g
    }

    /// `test_elementwise_grad`: the sum of an element-wise function.
    #[differentiable(order = 2)]
    pub fn elementwise(a: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in a {
            s += v + v.sin() + v.cosh();
        }
        s
    }

    /// `test_hessian_tensor_product`: `sum(sin(a))` over a 5x4 matrix.
    #[differentiable(order = 2)]
    pub fn sum_sin_matrix(a: [[f64; 4]; 5]) -> f64 {
        let mut s = 0.0;
        for row in a.iter() {
            for v in row.iter() {
                s += v.sin();
            }
        }
        s
    }

    /// `test_vector_jacobian_product`: `np.roll(np.sin(a), 1)`, an asymmetric Jacobian.
    #[differentiable]
    pub fn roll_sin(a: &[f64]) -> Vec<f64> {
        let n = a.len();
        let mut out = vec![0.0; n];
        for i in 0..n {
            out[(i + 1) % n] = a[i].sin();
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn bar(x: f64, y: f64) -> f64 {
        2.0 * x + y + 5.0
    }

    /// `test_checkpoint_correctness`: calls of another differentiable function.
    #[differentiable(order = 2)]
    pub fn foo(x: f64) -> f64 {
        bar(x, x / 3.0) + bar(x, x.powi(2))
    }
}

// ---------------------------------------------------------------------------------------------------
// autograd tests/test_numpy.py and test_systematic.py: numpy's element-wise and reduction ops, written
// as the loops a Rust user writes over slices.
// ---------------------------------------------------------------------------------------------------

pub mod numpy_ops {
    use autodiff::differentiable;

    /// `np.mean`.
    #[differentiable(order = 2)]
    pub fn mean(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i];
        }
        (s / x.len() as f64).powi(3)
    }

    /// `np.prod`, with signs and a zero-free domain.
    #[differentiable(order = 2)]
    pub fn prod(x: &[f64]) -> f64 {
        let mut p = 1.0;
        for v in x.iter() {
            p *= v;
        }
        p
    }

    /// `np.prod` as `.product()`.
    #[differentiable(order = 2)]
    pub fn prod_chain(x: &[f64]) -> f64 {
        x.iter().copied().product::<f64>() + x[0]
    }

    /// `np.var`: two passes.
    #[differentiable(order = 2)]
    pub fn var(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mut m = 0.0;
        for &v in x {
            m += v;
        }
        m /= n;
        let mut s = 0.0;
        for &v in x {
            s += (v - m) * (v - m);
        }
        s / n
    }

    /// `np.std(x, ddof=1)` as iterator chains.
    #[differentiable(order = 2)]
    pub fn std_ddof(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let ss: f64 = x.iter().map(|v| (v - m).powi(2)).sum();
        (ss / (n - 1.0)).sqrt()
    }

    /// `np.max` by a loop with a comparison, then used twice.
    #[differentiable(order = 2)]
    pub fn max_loop(x: &[f64]) -> f64 {
        let mut m = x[0];
        for i in 1..x.len() {
            if x[i] > m {
                m = x[i];
            }
        }
        m * m + m
    }

    /// `np.min` by a fold.
    #[differentiable(order = 2)]
    pub fn min_fold(x: &[f64]) -> f64 {
        let m = x.iter().fold(f64::INFINITY, |acc, &v| acc.min(v));
        m.exp()
    }

    /// `np.cumsum`, returned whole.
    #[differentiable]
    pub fn cumsum(x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i];
            out[i] = s;
        }
        out
    }

    /// `np.cumprod` in place in a copy.
    #[differentiable]
    pub fn cumprod(x: &[f64]) -> Vec<f64> {
        let mut out = x.to_vec();
        for i in 1..out.len() {
            out[i] = out[i] * out[i - 1];
        }
        out
    }

    /// `np.diff` squared and summed.
    #[differentiable(order = 2)]
    pub fn diff_sq(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for w in 1..x.len() {
            let d = x[w] - x[w - 1];
            s += d * d * (1.0 + x[w]);
        }
        s
    }

    /// `np.dot` of two active vectors, then `tanh`.
    #[differentiable(order = 2)]
    pub fn dot_tanh(a: &[f64], b: &[f64]) -> f64 {
        let d: f64 = a.iter().zip(b.iter()).map(|(p, q)| p * q).sum();
        d.tanh()
    }

    /// `np.outer` into a local matrix, then a weighted sum.
    #[differentiable(order = 2)]
    pub fn outer_weighted(a: &[f64], b: &[f64]) -> f64 {
        let mut m = vec![vec![0.0; b.len()]; a.len()];
        for i in 0..a.len() {
            for j in 0..b.len() {
                m[i][j] = a[i] * b[j];
            }
        }
        let mut s = 0.0;
        for i in 0..a.len() {
            for j in 0..b.len() {
                s += m[i][j] * m[i][j] * ((i + 2 * j) as f64 - 1.5);
            }
        }
        s
    }

    /// `np.trace` of `A^T A`.
    #[differentiable(order = 2)]
    pub fn trace_ata(a: [[f64; 3]; 3]) -> f64 {
        let mut t = 0.0;
        for k in 0..3 {
            let mut d = 0.0;
            for i in 0..3 {
                d += a[i][k] * a[i][k];
            }
            t += d;
        }
        t.sqrt()
    }

    /// `np.dot(A, x)` returned.
    #[differentiable]
    pub fn matvec(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; a.len()];
        for i in 0..a.len() {
            for j in 0..x.len() {
                y[i] += a[i][j] * x[j];
            }
        }
        y
    }

    /// `np.cross` of two 3-vectors, returned as an array.
    #[differentiable]
    pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// `np.linalg.norm`.
    #[differentiable(order = 2)]
    pub fn norm2(x: &[f64]) -> f64 {
        x.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    /// `np.clip` element-wise, then a sum of squares.
    #[differentiable(order = 2)]
    pub fn clip_sq(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let c = x[i].clamp(-1.0, 1.0);
            s += c * c + c * x[i];
        }
        s
    }

    /// `np.where(x > 0, x, 0.1 * x)`.
    #[differentiable(order = 2)]
    pub fn where_leaky(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let y = if x[i] > 0.0 { x[i] } else { 0.1 * x[i] };
            s += y * y * y;
        }
        s
    }

    /// `np.sort` by a bubble sort that swaps in place in a copy, then weights by rank.
    #[differentiable(order = 2)]
    pub fn sorted_weighted(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let n = v.len();
        for i in 0..n {
            for j in 0..n - 1 - i {
                if v[j] > v[j + 1] {
                    let t = v[j];
                    v[j] = v[j + 1];
                    v[j + 1] = t;
                }
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += (i as f64 + 1.0) * v[i] * v[i];
        }
        s
    }

    /// `np.maximum.accumulate`: a running maximum.
    #[differentiable(order = 2)]
    pub fn running_max(x: &[f64]) -> f64 {
        let mut m = x[0];
        let mut s = 0.0;
        for &v in x {
            m = m.max(v);
            s += m * v;
        }
        s
    }

    /// Total variation: `sum(abs(diff(x)))`.
    #[differentiable(order = 2)]
    pub fn total_variation(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 1..x.len() {
            s += (x[i] - x[i - 1]).abs();
        }
        s * x[0]
    }

    /// `np.tensordot(A, B, axes=2)` of two 2x2x2 arrays: three nested loops.
    #[differentiable(order = 2)]
    pub fn tensordot(a: [[[f64; 2]; 2]; 2], b: [[[f64; 2]; 2]; 2]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    s += a[i][j][k] * b[i][j][k] * a[k][j][i];
                }
            }
        }
        s
    }

    /// `np.triu`: only the upper triangle counts.
    #[differentiable(order = 2)]
    pub fn triu_sum(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            for j in i..m[i].len() {
                s += m[i][j] * m[j][i];
            }
        }
        s
    }

    /// `np.flip` then a discounted sum: the reverse range.
    #[differentiable(order = 2)]
    pub fn flip_discounted(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut k = 1.0;
        for i in (0..x.len()).rev() {
            s += k * x[i].sin();
            k *= 0.5;
        }
        s
    }

    /// `np.concatenate` into a local `Vec` by `push`, then `np.tile`-like reads by modulo.
    #[differentiable(order = 2)]
    pub fn concat_tile(a: &[f64], b: &[f64]) -> f64 {
        let mut c: Vec<f64> = Vec::new();
        for &v in a {
            c.push(v);
        }
        for &v in b {
            c.push(v * v);
        }
        let n = c.len();
        let mut s = 0.0;
        for i in 0..2 * n {
            s += c[i % n] * c[(i + 1) % n];
        }
        s
    }

    /// `np.linalg.det` of a 3x3 matrix by cofactors.
    #[differentiable(order = 2)]
    pub fn det3(m: [[f64; 3]; 3]) -> f64 {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    /// Normalisation into an output buffer; returns the norm.
    #[differentiable]
    pub fn normalize_into(x: &[f64], out: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
        }
        let r = s.sqrt();
        for i in 0..x.len() {
            out[i] = x[i] / r;
        }
        r
    }

    /// A softmax written into an output parameter: `-> ()`.
    #[differentiable]
    pub fn softmax_into(z: &[f64], p: &mut [f64]) {
        let mut m = z[0];
        for i in 1..z.len() {
            m = m.max(z[i]);
        }
        let mut s = 0.0;
        for i in 0..z.len() {
            p[i] = (z[i] - m).exp();
            s += p[i];
        }
        for i in 0..z.len() {
            p[i] /= s;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Softmax cross-entropy in the spellings users write, and log-likelihoods.
// ---------------------------------------------------------------------------------------------------

pub mod losses {
    use autodiff::differentiable;

    /// `log(sum(exp(z)))` with the maximum subtracted: a helper called once per example.
    #[differentiable(order = 2)]
    pub fn logsumexp(z: &[f64]) -> f64 {
        let mut m = f64::NEG_INFINITY;
        for &v in z {
            if v > m {
                m = v;
            }
        }
        let mut s = 0.0;
        for &v in z {
            s += (v - m).exp();
        }
        m + s.ln()
    }

    /// A linear model's logits rewritten per example in one local row, the maximum subtracted, the
    /// probabilities normalised in place and the label's taken.
    #[differentiable(order = 2, wrt(w))]
    pub fn xent_rows(w: &[f64], x: &[f64], labels: &[usize], k: usize) -> f64 {
        let d = w.len() / k;
        let n = labels.len();
        let mut z = vec![0.0; k];
        let mut loss = 0.0;
        for e in 0..n {
            for c in 0..k {
                z[c] = 0.0;
                for j in 0..d {
                    z[c] += w[c * d + j] * x[e * d + j];
                }
            }
            let mut m = z[0];
            for c in 1..k {
                m = m.max(z[c]);
            }
            let mut s = 0.0;
            for c in 0..k {
                z[c] = (z[c] - m).exp();
                s += z[c];
            }
            for c in 0..k {
                z[c] /= s;
            }
            loss -= z[labels[e]].ln();
        }
        loss / n as f64
    }

    /// The same loss through the `logsumexp` helper: `lse(z) - z[y]`.
    #[differentiable(order = 2, wrt(w))]
    pub fn xent_lse(w: &[f64], x: &[f64], labels: &[usize], k: usize) -> f64 {
        let d = w.len() / k;
        let mut loss = 0.0;
        for (e, &y) in labels.iter().enumerate() {
            let mut z = vec![0.0; k];
            for c in 0..k {
                let row = &w[c * d..(c + 1) * d];
                let xe = &x[e * d..(e + 1) * d];
                z[c] = row.iter().zip(xe.iter()).map(|(a, b)| a * b).sum();
            }
            loss += logsumexp(&z) - z[y];
        }
        loss / labels.len() as f64
    }

    /// Cross-entropy of given logits with iterator chains: the maximum by a fold, the sum by `map`.
    #[differentiable(order = 2, wrt(z))]
    pub fn xent_chain(z: &[f64], y: usize) -> f64 {
        let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
        m + s.ln() - z[y]
    }

    /// Cross-entropy against soft targets, both active; the log-softmax shadowed into the logits' name.
    #[differentiable(order = 2)]
    pub fn xent_soft(z: &[f64], t: &[f64]) -> f64 {
        let lse = logsumexp(z);
        let mut loss = 0.0;
        for i in 0..z.len() {
            let z = z[i] - lse;
            loss -= t[i] * z;
        }
        loss
    }

    /// Gaussian negative log-likelihood in `(mu, log_sigma)`.
    #[differentiable(order = 2, wrt(mu, log_sigma))]
    pub fn gauss_nll(mu: f64, log_sigma: f64, data: &[f64]) -> f64 {
        let sigma = log_sigma.exp();
        let mut nll = 0.0;
        for &x in data {
            let r = (x - mu) / sigma;
            nll += 0.5 * r * r + log_sigma + 0.5 * (2.0 * std::f64::consts::PI).ln();
        }
        nll
    }

    /// Poisson regression's log-likelihood (the `ln k!` term as a constant).
    #[differentiable(order = 2, wrt(w))]
    pub fn poisson_loglik(w: &[f64], x: &[f64], counts: &[usize]) -> f64 {
        let d = w.len();
        let mut ll = 0.0;
        for (i, &k) in counts.iter().enumerate() {
            let mut eta = 0.0;
            for j in 0..d {
                eta += w[j] * x[i * d + j];
            }
            let mut ln_fact = 0.0;
            for m in 2..=k {
                ln_fact += (m as f64).ln();
            }
            ll += k as f64 * eta - eta.exp() - ln_fact;
        }
        ll
    }

    /// Logistic regression's log-likelihood with the stable softplus written as a branch.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn logistic_loglik(w: &[f64], b: f64, x: &[f64], y: &[bool]) -> f64 {
        let d = w.len();
        let mut ll = 0.0;
        for i in 0..y.len() {
            let mut t = b;
            for j in 0..d {
                t += w[j] * x[i * d + j];
            }
            let s = if y[i] { -t } else { t };
            let softplus = if s > 0.0 {
                s + (-s).exp().ln_1p()
            } else {
                s.exp().ln_1p()
            };
            ll -= softplus;
        }
        ll
    }

    /// A two-component Gaussian mixture's log-likelihood by `logaddexp`.
    #[differentiable(order = 2)]
    pub fn mixture_loglik(p: [f64; 3], data: &[f64]) -> f64 {
        let (logit, m1, m2) = (p[0], p[1], p[2]);
        let lw1 = -(-logit).exp().ln_1p();
        let lw2 = -logit.exp().ln_1p();
        let mut ll = 0.0;
        for &x in data.iter() {
            let a = lw1 - 0.5 * (x - m1).powi(2);
            let b = lw2 - 0.5 * (x - m2).powi(2);
            let hi = a.max(b);
            ll += hi + ((a - hi).exp() + (b - hi).exp()).ln();
        }
        ll
    }

    /// Student-t log-density in `(loc, log_scale)`, `nu` fixed.
    #[differentiable(order = 2, wrt(loc, log_scale))]
    pub fn student_t(loc: f64, log_scale: f64, nu: f64, data: &[f64]) -> f64 {
        let scale = log_scale.exp();
        let mut ll = 0.0;
        for x in data {
            let r = (x - loc) / scale;
            ll -= 0.5 * (nu + 1.0) * (r * r / nu).ln_1p() + log_scale;
        }
        ll
    }

    /// A Laplace likelihood: `abs` of the residual.
    #[differentiable(order = 2)]
    pub fn laplace_nll(loc: f64, data: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..data.len() {
            s += (data[i] - loc).abs() * data[i];
        }
        s
    }

    /// A huberised regression loss with a `match` on which side of the threshold, by an integer code.
    #[differentiable(order = 2, wrt(w))]
    pub fn huber_regression(w: [f64; 2], xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let r = w[0] + w[1] * xs[i] - ys[i];
            let region = if r > 1.0 {
                2
            } else if r < -1.0 {
                0
            } else {
                1
            };
            loss += match region {
                0 => -r - 0.5,
                2 => r - 0.5,
                _ => 0.5 * r * r,
            };
        }
        loss
    }
}

// ---------------------------------------------------------------------------------------------------
// Small physics: energies, integrators.
// ---------------------------------------------------------------------------------------------------

pub mod physics {
    use autodiff::differentiable;

    /// Lennard-Jones energy of particles in the plane, positions flat `(x0, y0, x1, y1, ..)`.
    #[differentiable(order = 2)]
    pub fn lennard_jones(pos: &[f64]) -> f64 {
        let n = pos.len() / 2;
        let mut e = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let dx = pos[2 * i] - pos[2 * j];
                let dy = pos[2 * i + 1] - pos[2 * j + 1];
                let r2 = dx * dx + dy * dy;
                let s6 = (1.0 / r2).powi(3);
                e += 4.0 * (s6 * s6 - s6);
            }
        }
        e
    }

    /// Morse potential of a chain of bonds held in an array.
    #[differentiable(order = 2)]
    pub fn morse_chain(x: [f64; 4]) -> f64 {
        let (depth, a, r0) = (1.3, 1.1, 0.9);
        let mut e = 0.0;
        for i in 0..3 {
            let r = x[i + 1] - x[i];
            let q = 1.0 - (-a * (r - r0)).exp();
            e += depth * q * q;
        }
        e
    }

    /// Gravitational potential of a point in the plane against fixed masses at `(at[2k], at[2k + 1])`
    /// (a constant `&[[f64; 2]]` of points is a spanned error, even outside `wrt`).
    #[differentiable(order = 2, wrt(p))]
    pub fn gravity(p: [f64; 2], masses: &[f64], at: &[f64]) -> f64 {
        let mut u = 0.0;
        for k in 0..masses.len() {
            let dx = p[0] - at[2 * k];
            let dy = p[1] - at[2 * k + 1];
            u -= masses[k] / (dx * dx + dy * dy + 0.01).sqrt();
        }
        u
    }

    /// A pendulum's energy `(theta, omega)` as a tuple parameter.
    #[differentiable(order = 2)]
    pub fn pendulum_energy(state: (f64, f64), g: f64) -> f64 {
        let (theta, omega) = state;
        0.5 * omega * omega + g * (1.0 - theta.cos())
    }

    /// Explicit Euler on the pendulum with a float `while` condition on time; the step is active, so
    /// the trip count depends on it (a jump in `h`, smooth between).
    #[differentiable(order = 2)]
    pub fn euler_pendulum(theta0: f64, h: f64) -> f64 {
        let mut t = 0.0;
        let mut theta = theta0;
        let mut omega = 0.0;
        while t < 1.0 {
            let a = -9.81 * theta.sin();
            theta += h * omega;
            omega += h * a;
            t += h;
        }
        theta
    }

    /// Velocity Verlet for a double-well particle, a fixed number of steps, shadowed locals.
    #[differentiable(order = 2)]
    pub fn verlet_double_well(x0: f64, v0: f64) -> f64 {
        let dt = 0.05;
        let force = |x: f64| -4.0 * x * (x * x - 1.0);
        let mut x = x0;
        let mut v = v0;
        let mut f = force(x);
        for _ in 0..20 {
            let v_half = v + 0.5 * dt * f;
            x = x + dt * v_half;
            f = force(x);
            v = v_half + 0.5 * dt * f;
        }
        let e = 0.5 * v * v;
        let e = e + (x * x - 1.0).powi(2);
        e
    }

    /// Harmonic chain energy: kinetic from a `Vec` of momenta, potential from neighbour differences,
    /// with a periodic wrap.
    #[differentiable(order = 2)]
    pub fn harmonic_ring(q: &[f64], p: &[f64]) -> f64 {
        let n = q.len();
        let kinetic: f64 = p.iter().map(|v| 0.5 * v * v).sum();
        let mut potential = 0.0;
        for i in 0..n {
            let j = if i + 1 == n { 0 } else { i + 1 };
            let d = q[j] - q[i];
            potential += 0.5 * 2.5 * d * d;
        }
        kinetic + potential
    }

    /// The Coulomb energy of three charges on a line, written with `recip` and `abs`.
    #[differentiable(order = 2)]
    pub fn coulomb_line(x: [f64; 3]) -> f64 {
        let q = [1.0, -2.0, 1.5];
        let mut e = 0.0;
        for i in 0..3 {
            for j in 0..i {
                e += q[i] * q[j] * (x[i] - x[j]).abs().recip();
            }
        }
        e
    }

    /// A spring-mass system's right-hand side into `&mut` outputs: `dq = p`, `dp = -k q - c p`.
    #[differentiable]
    pub fn spring_rhs(q: &[f64], p: &[f64], k: f64, dq: &mut [f64], dp: &mut [f64]) {
        for i in 0..q.len() {
            dq[i] = p[i];
            dp[i] = -k * q[i] - 0.1 * p[i] * p[i].abs();
        }
    }

    /// One RK2 step of a scalar ODE, the right-hand side a differentiable function called twice.
    #[differentiable(order = 2)]
    pub fn logistic_rhs(y: f64, r: f64) -> f64 {
        r * y * (1.0 - y)
    }

    #[differentiable(order = 2)]
    pub fn rk2_logistic(y0: f64, r: f64) -> f64 {
        let h = 0.1;
        let mut y = y0;
        for _ in 0..10 {
            let k1 = logistic_rhs(y, r);
            let k2 = logistic_rhs(y + h * k1, r);
            y += 0.5 * h * (k1 + k2);
        }
        y
    }
}

// ---------------------------------------------------------------------------------------------------
// Polynomials, loops on float conditions, early returns, `match`, shadowing, tuples and arrays.
// ---------------------------------------------------------------------------------------------------

pub mod control {
    use autodiff::differentiable;

    /// Horner's rule over active coefficients, highest first, by index.
    #[differentiable(order = 2)]
    pub fn horner(c: &[f64], x: f64) -> f64 {
        let mut y = 0.0;
        for i in 0..c.len() {
            y = y * x + c[i];
        }
        y
    }

    /// Horner's rule by a fold, lowest coefficient first, reversed range.
    #[differentiable(order = 3)]
    pub fn horner_fold(x: f64) -> f64 {
        let c = [1.0, -2.0, 0.5, 3.0, -0.25];
        let mut acc = 0.0;
        for i in (0..c.len()).rev() {
            acc = acc * x + c[i];
        }
        let by_fold = c.iter().fold(0.0, |a, &k| a * x + k);
        acc + by_fold
    }

    /// Horner's rule with its derivative alongside (`p` and `p'` in one pass), returning `p * p'`.
    #[differentiable(order = 2)]
    pub fn horner_with_derivative(c: &[f64], x: f64) -> f64 {
        let mut p = c[0];
        let mut dp = 0.0;
        for &k in &c[1..] {
            dp = dp * x + p;
            p = p * x + k;
        }
        p * dp
    }

    /// The Chebyshev recurrence with a tuple state.
    #[differentiable(order = 3)]
    pub fn chebyshev(x: f64) -> f64 {
        let (mut t0, mut t1) = (1.0, x);
        let mut s = 0.5 * t0 + 0.25 * t1;
        for k in 2..7 {
            let t2 = 2.0 * x * t1 - t0;
            t0 = t1;
            t1 = t2;
            s += t2 / k as f64;
        }
        s
    }

    /// Newton's method for the cube root, `while` on a float tolerance.
    #[differentiable(order = 2)]
    pub fn newton_cbrt(a: f64) -> f64 {
        let mut y = a.max(1.0);
        let mut steps = 0;
        while (y * y * y - a).abs() > 1e-13 * a && steps < 100 {
            y = y - (y * y * y - a) / (3.0 * y * y);
            steps += 1;
        }
        y
    }

    /// A fixed-point iteration `x = a cos x` until it settles.
    #[differentiable]
    pub fn fixed_point(a: f64) -> f64 {
        let mut x: f64 = 0.0;
        let mut prev = 1.0;
        while (x - prev).abs() > 1e-15 {
            prev = x;
            x = a * x.cos();
        }
        x
    }

    /// A geometric series summed until its term is small: the trip count depends on `r`.
    #[differentiable(order = 2)]
    pub fn series_until_small(r: f64) -> f64 {
        let mut term = 1.0;
        let mut s = 0.0;
        loop {
            s += term;
            term *= r;
            if term.abs() < 1e-3 {
                break;
            }
        }
        s
    }

    /// An early `return` inside a loop: the first partial sum past a threshold, scaled.
    #[differentiable(order = 2)]
    pub fn first_past(x: &[f64], limit: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
            if s > limit {
                return s * limit;
            }
        }
        s - limit
    }

    /// An early `return` from a nested loop.
    #[differentiable(order = 2)]
    pub fn first_close_pair(x: &[f64]) -> f64 {
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let d = x[i] - x[j];
                if d.abs() < 0.3 {
                    return d * d + x[i] * x[j];
                }
            }
        }
        x[0].exp()
    }

    /// `match` on an integer computed from the input: a piecewise-cubic spline on unit segments.
    #[differentiable(order = 2)]
    pub fn spline(x: f64) -> f64 {
        let seg = x.floor() as i64;
        let t = x - seg as f64;
        let (a, b) = match seg {
            i64::MIN..=-1 => (1.0, -0.5),
            0 => (0.5, 2.0),
            1 | 2 => (-1.0, 0.25),
            _ => (0.0, 1.0),
        };
        a + b * t + t * t * (3.0 - 2.0 * t)
    }

    /// `match` on a `usize` parameter choosing the activation.
    #[differentiable(order = 2, wrt(x))]
    pub fn activation(x: f64, kind: usize) -> f64 {
        match kind {
            0 => x.tanh(),
            1 => x / (1.0 + (-x).exp()),
            2 => x.sin() * x,
            _ => x,
        }
    }

    /// Shadowing through several types: a slice, its sum, a tuple, a float.
    #[differentiable(order = 2)]
    pub fn shadowing(x: &[f64]) -> f64 {
        let y = x.iter().map(|v| v * 0.5).sum::<f64>();
        let y = (y, y.sin());
        let y = y.0 * y.1;
        let x = x[0] + y;
        x * x
    }

    /// Complex arithmetic in tuples: `|z^5|^2` by repeated multiplication.
    #[differentiable(order = 2)]
    pub fn complex_power(re: f64, im: f64) -> f64 {
        let z = (re, im);
        let mut w = (1.0, 0.0);
        for _ in 0..5 {
            w = (w.0 * z.0 - w.1 * z.1, w.0 * z.1 + w.1 * z.0);
        }
        w.0 * w.0 + w.1 * w.1
    }

    /// A helper returning a tuple, destructured in the caller.
    #[differentiable]
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    #[differentiable(order = 2)]
    pub fn polar_distance(r: f64, t: f64) -> f64 {
        let (x, y) = polar(r, t);
        let (x2, y2) = polar(r * 0.5, t + 1.0);
        (x - x2).hypot(y - y2)
    }

    /// A 2D rotation of an array, applied `n` times, then its first coordinate.
    #[differentiable(order = 2, wrt(p, angle))]
    pub fn rotate_n(p: [f64; 2], angle: f64, n: usize) -> f64 {
        let (s, c) = angle.sin_cos();
        let mut q = p;
        for _ in 0..n {
            q = [c * q[0] - s * q[1], s * q[0] + c * q[1]];
        }
        q[0] + 0.1 * q[1] * q[1]
    }

    /// A quaternion product returned as an array.
    #[differentiable]
    pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    }

    /// A `Vec` local grown and rewritten, an array local, and an `if` as a value choosing between them.
    #[differentiable(order = 2)]
    pub fn locals_mix(x: &[f64]) -> f64 {
        let mut v = vec![0.0; x.len()];
        let mut a = [0.0; 2];
        for i in 0..x.len() {
            v[i] = x[i] * (i as f64 + 1.0);
            a[i % 2] += v[i];
        }
        for i in 0..x.len() {
            v[i] = v[i] * a[(i + 1) % 2];
        }
        let total: f64 = v.iter().sum();
        let pick = if total > 0.0 { a[0] } else { a[1] };
        total + pick * pick
    }

    /// A `while` over an index with a float accumulator condition.
    #[differentiable(order = 2)]
    pub fn while_budget(x: &[f64]) -> f64 {
        let mut i = 0;
        let mut used = 0.0;
        let mut value = 0.0;
        while i < x.len() && used < 2.0 {
            used += x[i].abs();
            value += x[i] * used;
            i += 1;
        }
        value
    }

    /// `continue` past some elements and `break` at a sentinel.
    #[differentiable(order = 2)]
    pub fn skip_negative(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, &v) in x.iter().enumerate() {
            if v < 0.0 {
                continue;
            }
            if v > 1.8 {
                break;
            }
            s += v.sqrt() * (i as f64 + 1.0);
        }
        s
    }

    /// Compound assignment on array elements chosen by a computed index.
    #[differentiable(order = 2)]
    pub fn histogram_energy(x: &[f64]) -> f64 {
        let mut bins = [0.0; 4];
        for &v in x {
            let b = ((v + 2.0) as usize).min(3);
            bins[b] += v * v;
            bins[3 - b] -= 0.5 * v;
        }
        bins[0] * bins[1] + bins[2] * bins[3]
    }
}

// ---------------------------------------------------------------------------------------------------
// Calls between differentiable functions, across modules.
// ---------------------------------------------------------------------------------------------------

pub mod kernels {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn rbf(a: &[f64], b: &[f64], ell: f64) -> f64 {
        let mut d2 = 0.0;
        for i in 0..a.len() {
            d2 += (a[i] - b[i]).powi(2);
        }
        (-0.5 * d2 / (ell * ell)).exp()
    }

    #[differentiable(order = 2)]
    pub fn sq(x: f64) -> f64 {
        x * x
    }

    /// A generic helper, called from an `f64` function in another module.
    #[differentiable(order = 2)]
    pub fn softclip<T: autodiff::Float>(x: T, limit: T) -> T {
        limit * (x / limit).tanh()
    }
}

pub mod models {
    use super::kernels;
    use super::kernels::sq;
    use autodiff::differentiable;

    /// A kernel regression prediction: calls across modules by path, a slice of a local passed on.
    #[differentiable(order = 2, wrt(alpha, ell))]
    pub fn kernel_predict(alpha: &[f64], ell: f64, centres: &[f64], x: &[f64]) -> f64 {
        let d = x.len();
        let mut y = 0.0;
        for k in 0..alpha.len() {
            let c = &centres[k * d..(k + 1) * d];
            y += alpha[k] * kernels::rbf(c, x, ell);
        }
        sq(y) + kernels::softclip(y, 2.0)
    }

    /// A helper that calls a helper that calls a helper, with the arguments permuted.
    #[differentiable(order = 2)]
    pub fn inner(a: f64, b: f64) -> f64 {
        sq(a - b) * b.exp()
    }

    #[differentiable(order = 2)]
    pub fn middle(a: f64, b: f64) -> f64 {
        inner(b, a) + inner(a, a)
    }

    #[differentiable(order = 3)]
    pub fn outer(x: f64) -> f64 {
        middle(x, x.sin()) * 0.5
    }

    /// A recursive binary power (a differentiable function calling itself).
    #[differentiable(order = 2, wrt(x))]
    pub fn power_rec(x: f64, n: u32) -> f64 {
        if n == 0 {
            return 1.0;
        }
        let half = power_rec(x, n / 2);
        if n % 2 == 0 {
            half * half
        } else {
            half * half * x
        }
    }

    /// A function nested in the body.
    #[differentiable(order = 2)]
    pub fn with_nested_fn(x: f64, y: f64) -> f64 {
        fn blend(a: f64, b: f64) -> f64 {
            0.3 * a + 0.7 * b * a
        }
        blend(x, y) * blend(y, x)
    }
}

// ---------------------------------------------------------------------------------------------------
// A parameter struct and its methods.
// ---------------------------------------------------------------------------------------------------

/// A one-hidden-layer network for regression.
#[derive(Clone, Debug, Differentiable)]
pub struct TinyNet {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: f64,
    #[no_grad]
    pub hidden: usize,
}

impl TinyNet {
    /// The network's output at one input.
    #[differentiable(order = 2, wrt(self))]
    pub fn predict(&self, x: f64) -> f64 {
        let mut y = self.b2;
        for h in 0..self.hidden {
            let a = (self.w1[h] * x + self.b1[h]).tanh();
            y += self.w2[h] * a;
        }
        y
    }

    /// The mean squared error, calling `predict` per example.
    #[differentiable(order = 2, wrt(self))]
    pub fn mse(&self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let r = self.predict(xs[i]) - ys[i];
            s += r * r;
        }
        s / xs.len() as f64
    }

    /// The output as a function of the input, `self` constant: a method differentiated in `x` only.
    #[differentiable]
    pub fn slope_energy(&self, x: f64) -> f64 {
        let mut y = 0.0;
        for h in 0..self.hidden {
            y += self.w2[h] * (self.w1[h] * x + self.b1[h]).tanh();
        }
        y * y
    }
}

/// A free function of the struct, regularised.
#[differentiable(order = 2, wrt(net))]
pub fn regularised(net: &TinyNet, xs: &[f64], ys: &[f64], lambda: f64) -> f64 {
    let mut reg = 0.0;
    for h in 0..net.hidden {
        reg += net.w1[h] * net.w1[h] + net.w2[h] * net.w2[h];
    }
    TinyNet::mse(net, xs, ys) + lambda * reg
}

// ---------------------------------------------------------------------------------------------------
// Custom gradients at first and second order.
// ---------------------------------------------------------------------------------------------------

pub mod customs {
    use autodiff::{custom_gradient, differentiable};

    /// `log(1 + e^x)` whose closure computes the logistic function stably by a branch.
    #[custom_gradient]
    pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let value = if x > 0.0 {
            x + (-x).exp().ln_1p()
        } else {
            x.exp().ln_1p()
        };
        let s = if x > 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            x.exp() / (1.0 + x.exp())
        };
        (value, move |dy| dy * s)
    }

    /// Straight-through rounding: `round` forward, the identity backward.
    #[custom_gradient]
    pub fn st_round(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x.round(), move |dy| dy)
    }

    /// `x.clamp(-1, 1)` forward, the cotangent passed only inside (a clipped identity).
    #[custom_gradient]
    pub fn clipped(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let inside = if x.abs() < 1.0 { 1.0 } else { 0.0 };
        (x.clamp(-1.0, 1.0), move |dy| dy * inside)
    }

    /// A two-input custom gradient: the Euclidean norm with its gradient written out.
    #[custom_gradient]
    pub fn norm2(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let r = (a * a + b * b).sqrt();
        (r, move |dy| (dy * a / r, dy * b / r))
    }

    /// A softplus classifier's loss over a batch.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn softplus_loss(w: &[f64], b: f64, x: &[f64], y: &[f64]) -> f64 {
        let d = w.len();
        let mut s = 0.0;
        for i in 0..y.len() {
            let mut t = b;
            for j in 0..d {
                t += w[j] * x[i * d + j];
            }
            s += log1pexp(-y[i] * t);
        }
        s
    }

    /// Quantisation-aware: the rounded weight times the input, squared, through the straight-through
    /// estimator; its first derivative by the rule is `2 q x` where `q = round(w) x`, its second `2 x^2`.
    #[differentiable(order = 2)]
    pub fn quantised_fit(w: f64, x: f64) -> f64 {
        let q = st_round(w) * x;
        q * q
    }

    /// A clipped activation in a sum, at second order: inside, the identity's derivatives.
    #[differentiable(order = 2)]
    pub fn clipped_energy(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let c = clipped(x[i] * 0.7);
            s += c * c * x[i];
        }
        s
    }

    /// The two-input custom gradient in a loop over pairs.
    #[differentiable(order = 2)]
    pub fn path_length(p: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..p.len() / 2 - 1 {
            s += norm2(p[2 * k + 2] - p[2 * k], p[2 * k + 3] - p[2 * k + 1]);
        }
        s
    }

    /// A custom gradient at third order.
    #[differentiable(order = 3)]
    pub fn log1pexp_cubed(x: f64) -> f64 {
        let v = log1pexp(2.0 * x - 1.0);
        v * v * v
    }
}

// ---------------------------------------------------------------------------------------------------
// More of the forms numeric Rust is written in.
// ---------------------------------------------------------------------------------------------------

pub mod rust_forms {
    use autodiff::differentiable;

    /// A chain collected into a `Vec`, then summed and indexed.
    #[differentiable(order = 2)]
    pub fn collect_then_sum(x: &[f64]) -> f64 {
        let v: Vec<f64> = x.iter().map(|a| a * a).collect();
        v.iter().sum::<f64>() * v[0]
    }

    /// Horner's rule over a reversed slice iterator.
    #[differentiable(order = 2)]
    pub fn rev_iter(c: &[f64], x: f64) -> f64 {
        let mut acc = 0.0;
        for &k in c.iter().rev() {
            acc = acc * x + k;
        }
        acc
    }

    /// The nearest point's squared distance, the minimum started at `f64::INFINITY`.
    #[differentiable(order = 2)]
    pub fn nearest(x: &[f64], q: f64) -> f64 {
        let mut best = f64::INFINITY;
        for &v in x {
            let d = (v - q) * (v - q);
            if d < best {
                best = d;
            }
        }
        best
    }

    /// Two chains in one expression: a mean squared error plus a log-sum-exp.
    #[differentiable(order = 2)]
    pub fn chains_in_one_expr(x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / x.len() as f64
            + x.iter().map(|v| v.exp()).sum::<f64>().ln()
    }

    #[differentiable(order = 2)]
    pub fn sq(v: f64) -> f64 {
        v * v
    }

    /// A closure that calls a differentiable function, mapped over a slice.
    #[differentiable(order = 2)]
    pub fn closure_calls_fn(x: &[f64]) -> f64 {
        let f = |v: f64| sq(v) + v;
        x.iter().map(|&v| f(v)).sum()
    }

    #[differentiable]
    pub fn running(x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i];
            out[i] = s * x[i];
        }
        out
    }

    /// A `Vec` result of a differentiable call used as a local.
    #[differentiable(order = 2)]
    pub fn uses_vec_call(x: &[f64]) -> f64 {
        let c = running(x);
        let mut s = 0.0;
        for i in 0..c.len() {
            s += c[i] * c[i];
        }
        s
    }

    /// A `const` length in the body.
    #[differentiable(order = 3)]
    pub fn const_len_array(x: f64) -> f64 {
        const N: usize = 3;
        let mut a = [0.0; N];
        for i in 0..N {
            a[i] = x * (i as f64 + 1.0);
        }
        a[0] * a[1] * a[2]
    }

    /// The parameter shadowed, then a loop with `powi` of a cast counter.
    #[differentiable(order = 2, wrt(x))]
    pub fn shadow_param_then_loop(x: f64, n: usize) -> f64 {
        let x = x * 0.5;
        let mut s = 0.0;
        for k in 0..n {
            s += x.powi(k as i32);
        }
        s
    }

    #[differentiable(order = 3)]
    pub fn powi_negative(x: f64) -> f64 {
        x.powi(-2) + x.powi(3)
    }

    /// A `&mut f64` output.
    #[differentiable]
    pub fn scalar_out(x: f64, y: &mut f64) {
        *y = x * x.sin();
    }

    /// `use` of a constant inside the body.
    #[differentiable(order = 2)]
    pub fn use_in_body(x: f64) -> f64 {
        use std::f64::consts::PI;
        (PI * x).sin()
    }

    /// An early `return` of a copy written in the branch.
    #[differentiable]
    pub fn early_return_copy(x: &[f64]) -> Vec<f64> {
        if x[0] > 0.0 {
            let mut v = x.to_vec();
            v[0] = 2.0 * v[0] * x[1];
            return v;
        }
        x.to_vec()
    }

    /// A `match` on byte codes inside a loop, one arm returning.
    #[differentiable(order = 2, wrt(x))]
    pub fn interpreter(x: &[f64], codes: &[u8]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            match codes[i] {
                0 => s += x[i],
                1 => s *= x[i],
                2 => return s * x[i],
                _ => {}
            }
        }
        s
    }

    /// A closure of two arguments returning a tuple.
    #[differentiable(order = 2)]
    pub fn pair_closure(x: &[f64]) -> f64 {
        let pair = |a: f64, b: f64| (a * b, a + b);
        let mut s = 0.0;
        for i in 1..x.len() {
            let (p, q) = pair(x[i - 1], x[i]);
            s += p / (1.0 + q * q);
        }
        s
    }

    /// `sin_cos` of an expression, at third order.
    #[differentiable(order = 3)]
    pub fn sin_cos_product(x: f64) -> f64 {
        let (s, c) = (x * x).sin_cos();
        s * c * x
    }

    /// `to_degrees` and `to_radians` together.
    #[differentiable(order = 3)]
    pub fn degrees(x: f64) -> f64 {
        x.to_degrees() * x.to_radians().sin()
    }
}

// ---------------------------------------------------------------------------------------------------
// Aliasing and scoping: in-place updates whose indices meet, the same array passed twice, shadowing
// inside loops, block expressions.
// ---------------------------------------------------------------------------------------------------

pub mod aliasing {
    use autodiff::differentiable;

    /// `v[i] = v[i] * v[j] + x[i]` with `j = 3i mod n`: sometimes `j == i`, sometimes `j` already written.
    #[differentiable(order = 2)]
    pub fn in_place_meeting(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        for i in 0..n {
            let j = (i * 3) % n;
            v[i] = v[i] * v[j] + x[i];
        }
        let mut s = 0.0;
        for i in 0..n {
            s += v[i];
        }
        s
    }

    /// A shift in place, in forward order (each read sees the value just written).
    #[differentiable(order = 2)]
    pub fn shift_forward(mut x: [f64; 4]) -> f64 {
        for i in 1..4 {
            x[i] = x[i - 1] * 0.5 + x[i].sin();
        }
        x[3] * x[2]
    }

    /// Compound assignment to an element chosen by data, read on the right through another index.
    #[differentiable(order = 2, wrt(x))]
    pub fn scatter_add(x: &[f64], to: &[usize], from: &[usize]) -> f64 {
        let mut acc = vec![0.0; x.len()];
        for i in 0..x.len() {
            acc[i] = x[i];
        }
        for k in 0..to.len() {
            acc[to[k]] += acc[from[k]] * x[k % x.len()];
        }
        acc.iter().map(|v| v * v).sum()
    }

    #[differentiable(order = 2)]
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[i];
        }
        s
    }

    /// The same slice passed twice to one call, and a local passed twice.
    #[differentiable(order = 2)]
    pub fn same_slice_twice(x: &[f64]) -> f64 {
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = x[i].sin();
        }
        dot(x, x) + dot(&y, &y) * dot(x, &y)
    }

    /// A loop body that shadows the accumulator it carries: the inner `s` is a new binding.
    #[differentiable(order = 2)]
    pub fn shadow_in_loop(x: f64) -> f64 {
        let mut s = x;
        let mut t = 0.0;
        for _ in 0..3 {
            let s = s * 2.0;
            t += s;
        }
        s = s * x;
        for k in 0..2 {
            let t = t + k as f64;
            s += t * x;
        }
        s + t
    }

    /// Block expressions as values, and a variable assigned in one branch only.
    #[differentiable(order = 2)]
    pub fn blocks(x: f64, y: f64) -> f64 {
        let a = {
            let t = x * y;
            t + 1.0
        };
        let mut b = y;
        if a > 1.0 {
            b = a * x;
        }
        let c = if b > 0.0 {
            let u = b.sqrt();
            u * u * u
        } else {
            b
        };
        c + a
    }

    /// A swap of two locals through a tuple, repeated.
    #[differentiable(order = 2)]
    pub fn tuple_swaps(x: f64, y: f64) -> f64 {
        let (mut a, mut b) = (x, y);
        for _ in 0..3 {
            let (na, nb) = (b, a * b);
            a = na;
            b = nb;
        }
        a + 2.0 * b
    }

    /// `loop` with a `break` inside a `match` inside the loop, the state in an array.
    #[differentiable(order = 2)]
    pub fn loop_match_break(x: [f64; 2]) -> f64 {
        let mut p = x;
        let mut k = 0usize;
        loop {
            match k % 3 {
                0 => p[0] = p[0] * p[1],
                1 => p[1] = p[1] + p[0].sin(),
                _ => {
                    if k > 6 {
                        break;
                    }
                }
            }
            k += 1;
        }
        p[0] + p[1]
    }

    /// An accumulator output read before it is written, through a call.
    #[differentiable]
    pub fn add_scaled(x: &[f64], a: f64, acc: &mut [f64]) {
        for i in 0..x.len() {
            acc[i] += a * x[i];
        }
    }

    #[differentiable]
    pub fn twice_into(x: &[f64], a: f64) -> f64 {
        let mut acc = vec![1.0; x.len()];
        add_scaled(x, a, &mut acc);
        add_scaled(&acc.clone(), a, &mut acc);
        acc.iter().map(|v| v * v).sum()
    }
}

// ---------------------------------------------------------------------------------------------------
// Stencils: neighbours at offsets, in-place sweeps, strided and mirrored indices.
// ---------------------------------------------------------------------------------------------------

pub mod stencils {
    use autodiff::differentiable;

    /// Gauss-Seidel sweeps in place: `v[i-1]` already new, `v[i+1]` still old.
    #[differentiable(order = 2)]
    pub fn gauss_seidel(f: &[f64], sweeps: usize) -> f64 {
        let n = f.len();
        let mut v = vec![0.0; n];
        for _ in 0..sweeps {
            for i in 1..n - 1 {
                v[i] = 0.5 * (v[i - 1] + v[i + 1]) + 0.1 * f[i] * f[i];
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += v[i] * f[i];
        }
        s
    }

    /// A discrete Laplacian energy with three neighbours read and one written elsewhere.
    #[differentiable(order = 2)]
    pub fn laplacian_energy(u: &[f64]) -> f64 {
        let n = u.len();
        let mut lap = vec![0.0; n];
        for i in 1..n - 1 {
            lap[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
        }
        let mut e = 0.0;
        for i in 1..n - 1 {
            e += lap[i] * lap[i] + u[i].powi(4) * 0.1;
        }
        e
    }

    /// Strided and mirrored reads.
    #[differentiable(order = 2)]
    pub fn mirrored(x: &[f64]) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        for i in (0..n).step_by(2) {
            s += x[i] * x[n - 1 - i];
        }
        for i in 0..n / 2 {
            let i = i + n / 2;
            s += x[i].sin();
        }
        s
    }

    /// An explicit heat equation in time, the new row computed from the old one in a second buffer,
    /// the buffers swapped by copying.
    #[differentiable(order = 2)]
    pub fn heat(u0: &[f64], k: f64) -> f64 {
        let n = u0.len();
        let mut u = u0.to_vec();
        let mut next = vec![0.0; n];
        for _ in 0..5 {
            next[0] = u[0];
            next[n - 1] = u[n - 1];
            for i in 1..n - 1 {
                next[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
            }
            for i in 0..n {
                u[i] = next[i];
            }
        }
        u.iter().map(|v| v * v).sum()
    }
}

// ---------------------------------------------------------------------------------------------------
// A registered gradient and a custom gradient over a slice, in likelihoods.
// ---------------------------------------------------------------------------------------------------

pub mod registered {
    use autodiff::{custom_gradient, differentiable, gradient_of};

    /// `erf'(x) = 2/sqrt(pi) e^(-x^2)`.
    #[gradient_of(libm::erf)]
    fn erf_vjp(x: f64, dy: f64) -> f64 {
        dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
    }

    /// Probit regression's log-likelihood through the normal CDF, `Phi(t) = (1 + erf(t / sqrt 2)) / 2`.
    #[differentiable(order = 2, wrt(w))]
    pub fn probit_loglik(w: &[f64], x: &[f64], y: &[bool]) -> f64 {
        let d = w.len();
        let mut ll = 0.0;
        for i in 0..y.len() {
            let mut t = 0.0;
            for j in 0..d {
                t += w[j] * x[i * d + j];
            }
            let s = if y[i] { t } else { -t };
            let phi = 0.5 * (1.0 + libm::erf(s / std::f64::consts::SQRT_2));
            ll += phi.ln();
        }
        ll
    }

    /// `log(sum(exp(z)))` whose cotangent is the softmax, a slice in and a `Vec` out.
    #[custom_gradient]
    pub fn lse(z: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
        let mut m = z[0];
        for &v in z {
            m = m.max(v);
        }
        let mut s = 0.0;
        for &v in z {
            s += (v - m).exp();
        }
        let value = m + s.ln();
        let p: Vec<f64> = z.iter().map(|v| (v - value).exp()).collect();
        (value, move |dy| p.iter().map(|q| dy * q).collect())
    }

    /// Cross-entropy through the custom `lse`, at second order.
    #[differentiable(order = 2, wrt(z))]
    pub fn xent_custom(z: &[f64], y: usize) -> f64 {
        lse(z) - z[y]
    }
}

// ---------------------------------------------------------------------------------------------------
// Patterns, mutual recursion, arrays by reference, generic custom gradients.
// ---------------------------------------------------------------------------------------------------

pub mod patterns {
    use autodiff::{custom_gradient, differentiable, Float};

    /// `match` on a code made of two integers, an `if` inside an arm, and arrays as the `match`'s value
    /// (tuple patterns and guards are spanned errors).
    #[differentiable(order = 2, wrt(x, y))]
    pub fn tuple_match(x: f64, y: f64, i: usize, j: usize) -> f64 {
        let v = match 3 * (i % 2) + j % 3 {
            0 => [x, y],
            1 | 2 => {
                if x > 0.5 {
                    [y * x, x]
                } else {
                    [y, x * x]
                }
            }
            4 | 5 => [x.sin(), y.cos()],
            _ => [y, x * x],
        };
        v[0] * v[1] + v[0]
    }

    /// Mutual recursion at second order.
    #[differentiable(order = 2, wrt(x))]
    pub fn ping(x: f64, n: usize) -> f64 {
        if n == 0 {
            x
        } else {
            pong(x * 1.1, n - 1).sin()
        }
    }

    #[differentiable(order = 2, wrt(x))]
    pub fn pong(x: f64, n: usize) -> f64 {
        if n == 0 {
            x * x
        } else {
            ping(x + 0.3, n - 1) * x
        }
    }

    #[differentiable(order = 2)]
    pub fn norm3(v: &[f64; 3]) -> f64 {
        (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
    }

    /// A local array passed as `&[T; N]`, rebuilt in a loop.
    #[differentiable(order = 2)]
    pub fn local_array_by_ref(p: [f64; 3], q: [f64; 3]) -> f64 {
        let mut total = 0.0;
        let mut d = [0.0; 3];
        for step in 0..3 {
            let t = step as f64 * 0.5;
            for k in 0..3 {
                d[k] = p[k] + t * q[k];
            }
            total += norm3(&d);
        }
        total
    }

    /// A generic custom gradient: the softsign `x / (1 + |x|)`.
    #[custom_gradient]
    pub fn softsign<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
        let d = T::one() + x.abs();
        (x / d, move |dy| dy / (d * d))
    }

    /// Used from an `f64` function and from a generic one.
    #[differentiable(order = 2)]
    pub fn softsign_sum(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += softsign(v) * v;
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn softsign_generic<T: Float>(x: T, y: T) -> T {
        softsign(x * y) + T::from(0.5).unwrap() * softsign(y)
    }
}

// ---------------------------------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------------------------------

#[test]
fn autograd_scalar_ops() {
    use scalar_ops as so;
    use std::f64::consts::{LN_10, LN_2, PI};
    // For each operation: its domain, its first and second derivatives by hand.
    type Formula = (fn(f64) -> f64, fn(f64) -> f64);
    let formulas: [Formula; 31] = [
        (|x| 3.0 * x.signum(), |_| 0.0),
        (|x| 3.0 * x.cos(), |x| -3.0 * x.sin()),
        (|_| 1.0, |_| 0.0),
        (|x| 3.0 * x.exp(), |x| 3.0 * x.exp()),
        (|x| 3.0 / x, |x| -3.0 / (x * x)),
        (|x| 3.0 / (x * LN_2), |x| -3.0 / (x * x * LN_2)),
        (|x| 3.0 / (x * LN_10), |x| -3.0 / (x * x * LN_10)),
        (|x| 3.0 / (1.0 + x), |x| -3.0 / (1.0 + x).powi(2)),
        (|x| 3.0 * x.exp(), |x| 3.0 * x.exp()),
        (|x| 3.0 * LN_2 * x.exp2(), |x| 3.0 * LN_2 * LN_2 * x.exp2()),
        (|_| -3.0, |_| 0.0),
        (|x| -3.0 * x.sin(), |x| -3.0 * x.cos()),
        (
            |x| 3.0 / x.cos().powi(2),
            |x| 6.0 * x.tan() / x.cos().powi(2),
        ),
        (|x| 3.0 * x.sinh(), |x| 3.0 * x.cosh()),
        (|x| 3.0 * x.cosh(), |x| 3.0 * x.sinh()),
        (
            |x| -3.0 / (1.0 - x * x).sqrt(),
            |x| -3.0 * x / (1.0 - x * x).powf(1.5),
        ),
        (
            |x| 3.0 / (1.0 - x * x).sqrt(),
            |x| 3.0 * x / (1.0 - x * x).powf(1.5),
        ),
        (
            |x| 3.0 / (1.0 + x * x),
            |x| -6.0 * x / (1.0 + x * x).powi(2),
        ),
        (
            |x| 3.0 / (x * x - 1.0).sqrt(),
            |x| -3.0 * x / (x * x - 1.0).powf(1.5),
        ),
        (
            |x| 3.0 / (x * x + 1.0).sqrt(),
            |x| -3.0 * x / (x * x + 1.0).powf(1.5),
        ),
        (|x| 3.0 / (1.0 - x * x), |x| 6.0 * x / (1.0 - x * x).powi(2)),
        (|x| 1.5 / x.sqrt(), |x| -0.75 / x.powf(1.5)),
        (|x| x.powf(-2.0 / 3.0), |x| -2.0 / 3.0 * x.powf(-5.0 / 3.0)),
        (|x| 2.7 * x.powf(1.7), |x| 2.7 * 1.7 * x.powf(0.7)),
        (
            |y| 1.9f64.powf(y) * 1.9f64.ln(),
            |y| 1.9f64.powf(y) * 1.9f64.ln().powi(2),
        ),
        (|_| 1.0, |_| 0.0),
        (|x| -1.0 / (x * x), |x| 2.0 / (x * x * x)),
        (|_| 540.0 / PI, |_| 0.0),
        (|_| PI / 60.0, |_| 0.0),
        (
            |x| {
                let p = PI * x;
                3.0 * (p.cos() * p - p.sin()) / (p * x)
            },
            |x| {
                let p = PI * x;
                3.0 * (-(p * p) * p.sin() - 2.0 * p * p.cos() + 2.0 * p.sin()) / (p * x * x)
            },
        ),
        (|_| 0.0, |_| 0.0),
    ];
    for (op, (name, (d1, d2))) in so::UNARY.iter().zip(formulas).enumerate() {
        let sample: Box<dyn Fn(&mut Lcg) -> Flat> = match *name {
            "abs" | "sign" => Box::new(away_from(1, -3.0, 3.0, 100.0, 0.0)),
            "log"
            | "log2"
            | "log10"
            | "sqrt"
            | "cbrt"
            | "reciprocal"
            | "power_arg0"
            | "sinc"
            | "power_zero_exponent" => Box::new(range(1, 0.2, 4.0)),
            "log1p" => Box::new(range(1, -0.5, 3.0)),
            "arccos" | "arcsin" | "arctanh" => Box::new(range(1, -0.9, 0.9)),
            "arccosh" => Box::new(range(1, 1.1, 4.0)),
            "tan" => Box::new(range(1, -1.3, 1.3)),
            "power_arg1_zero" => Box::new(range(1, 0.1, 3.0)),
            _ => Box::new(range(1, -2.5, 2.5)),
        };
        Probe::new(name, move |x| so::unary(x[0], op))
            .grad(move |x| {
                let (v, d) = so::unary_grad(x[0], op);
                (v, vec![d])
            })
            .jvp(move |x, t| so::unary_jvp(x[0], op, t[0]))
            .grad_into(move |x| {
                let mut d = GARBAGE;
                let v = so::unary_grad_into(x[0], op, &mut d);
                (v, vec![d])
            })
            .hessian(move |x| {
                let (v, g, h) = so::unary_hessian(x[0], op);
                let ds = so::unary_derivatives(x[0], op);
                let what = format!("{name}: f_derivatives against f_hessian");
                assert_vec_near(&ds, &[v, g, h[0][0]], 1e-12, &what);
                assert_near(
                    h[0][0],
                    d2(x[0]),
                    1e-9,
                    0.0,
                    &format!("{name}'' against the formula"),
                );
                (v, vec![g], h)
            })
            .analytic(move |x| vec![d1(x[0])])
            .run(POINTS, sample);
    }
    // At the non-differentiable points, JAX's conventions (DESIGN.md 6): `abs` at +0 has slope 1, and
    // `x.powf(0.0)` has zero derivatives at 0 (autograd issue 116).
    assert_eq!(so::unary_grad(0.0, 0), (0.0, 3.0));
    assert_eq!(so::unary_grad(-0.0, 0).1, -3.0);
    assert_eq!(so::unary_derivatives(0.0, 30), [1.0, 0.0, 0.0]);
    assert_eq!(so::unary_derivatives(1.7, 30), [1.0, 0.0, 0.0]);
    // `0^y` at `y > 0`: a zero derivative, as JAX.
    assert_eq!(so::unary_derivatives(0.5, 25), [0.5, 1.0, 0.0]);
}

#[test]
fn autograd_binary_ops() {
    use scalar_ops as so;
    let formulas: [fn(f64, f64) -> Flat; 9] = [
        |x, y| vec![y * x.powf(y - 1.0), x.powf(y) * x.ln()],
        |x, y| vec![1.0, -(x / y).trunc()],
        |x, y| vec![1.0 / y, -x / (y * y)],
        |x, y| vec![y, x],
        |y, x| {
            let r2 = x * x + y * y;
            vec![x / r2, -y / r2]
        },
        |x, y| {
            let r = x.hypot(y);
            vec![x / r, y / r]
        },
        |x, y| {
            let s = x.exp2() + y.exp2();
            vec![x.exp2() / s, y.exp2() / s]
        },
        |x, b| vec![1.0 / (x * b.ln()), -x.ln() / (b * b.ln().powi(2))],
        |x, y| vec![y + 2.0 * x, x],
    ];
    for (op, (name, a)) in so::BINARY.iter().zip(formulas).enumerate() {
        let name = *name;
        let sample = move |r: &mut Lcg| -> Flat {
            match name {
                // Positive operands, away from the jumps of `x % y` (where x / y is an integer).
                "modulo" => loop {
                    let (x, y) = (r.uniform(0.1, 3.0), r.uniform(0.3, 1.5));
                    let q = x / y;
                    if (q - q.round()).abs() > 0.02 {
                        break vec![x, y];
                    }
                },
                "power" => vec![r.uniform(0.2, 3.0), r.uniform(-2.0, 2.0)],
                "log_base" => vec![r.uniform(0.2, 3.0), r.uniform(1.3, 4.0)],
                "divide" => vec![r.uniform(-2.0, 2.0), r.uniform(0.3, 2.0)],
                _ => vec![r.uniform(-2.0, 2.0), r.uniform(-2.0, 2.0)],
            }
        };
        Probe::new(name, move |x| so::binary(x[0], x[1], op))
            .grad(move |x| {
                let (v, d) = so::binary_grad(x[0], x[1], op);
                (v, vec![d.0, d.1])
            })
            .jvp(move |x, t| so::binary_jvp(x[0], x[1], op, (t[0], t[1])))
            .grad_into(move |x| {
                let (mut p, mut q) = (GARBAGE, GARBAGE);
                let v = so::binary_grad_into(x[0], x[1], op, (&mut p, &mut q));
                (v, vec![p, q])
            })
            .hessian(move |x| {
                let (v, g, h) = so::binary_hessian(x[0], x[1], op);
                (v, vec![g.0, g.1], h)
            })
            .analytic(move |x| a(x[0], x[1]))
            .run(POINTS, sample);
    }
    // `max`/`min` of two active values, away from ties; a tie splits the cotangent (DESIGN.md 6).
    two(
        "max_min",
        so::max_min,
        so::max_min_grad,
        so::max_min_jvp,
        so::max_min_grad_into,
    )
    .hessian(hess2(so::max_min_hessian))
    .analytic(|x| {
        if x[0] > x[1] {
            vec![2.0, 1.0]
        } else {
            vec![1.0, 2.0]
        }
    })
    .run(POINTS, |r: &mut Lcg| {
        let x = r.uniform(-2.0, 2.0);
        let y = x + r.uniform(0.05, 1.0) * if r.unit() < 0.5 { -1.0 } else { 1.0 };
        vec![x, y]
    });
    assert_eq!(so::max_min_grad(0.5, 0.5).1, (1.5, 1.5));
}

#[test]
fn autograd_graphs() {
    use graphs as gr;
    // `test_grad_fanout` and `test_third_derivative`.
    Probe::new("fanout", |x| gr::fanout(x[0]))
        .grad(|x| {
            let (v, d) = gr::fanout_grad(x[0]);
            (v, vec![d])
        })
        .jvp(|x, t| gr::fanout_jvp(x[0], t[0]))
        .hessian(|x| {
            let (v, g, h) = gr::fanout_hessian(x[0]);
            (v, vec![g], h)
        })
        .analytic(|x| vec![2.0 * x[0].cos() * (2.0 * x[0].sin()).cos()])
        .run(POINTS, range(1, -3.0, 3.0));
    check_third("fanout", gr::fanout_derivatives, POINTS, -3.0, 3.0);
    check_third(
        "assignment_then_reuse",
        gr::assignment_then_reuse_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    // y = x^3, z = x^2: f = x^3 + x^5.
    for x in [-1.5, 0.3, 2.0] {
        let d = gr::assignment_then_reuse_derivatives(x);
        let e = [
            x.powi(3) + x.powi(5),
            3.0 * x * x + 5.0 * x.powi(4),
            6.0 * x + 20.0 * x.powi(3),
            6.0 + 60.0 * x * x,
        ];
        assert_vec_near(&d, &e, 1e-12, "assignment_then_reuse_derivatives");
    }
    // `test_third_derivative_other_args`: `order = 3` on two inputs gives the Hessian.
    two(
        "fanout_two",
        gr::fanout_two,
        gr::fanout_two_grad,
        gr::fanout_two_jvp,
        gr::fanout_two_grad_into,
    )
    .hessian(hess2(gr::fanout_two_hessian))
    .analytic(|x| {
        let c = (x[0].sin() + x[1].sin()).cos();
        vec![c * x[0].cos(), c * x[1].cos()]
    })
    .run(POINTS, range(2, -3.0, 3.0));
    // `test_grad_const` and `test_grad_identity`'s second derivative.
    assert_eq!(gr::constant_grad(2.0), (1.0, 0.0));
    assert_eq!(gr::constant_derivatives(-0.5), [1.0, 0.0, 0.0]);
    assert_eq!(gr::constant_jvp(2.0, 1.0), (1.0, 0.0));
    // `test_hess_vector_prod`: `f_hvp` against the Hessian `-sin(x.r) r r^T`.
    let r = [0.4, -1.1, 0.9, 0.2];
    let mut rng = Lcg::new(3);
    for _ in 0..POINTS {
        let x = rng.vec(4, -1.0, 1.0);
        let v = rng.vec(4, -1.0, 1.0);
        let (val, g, hv) = gr::sin_dot_hvp(&x, &r, v.clone());
        let s = dot(&x, &r);
        assert_near(val, s.sin(), 1e-14, 0.0, "sin_dot value");
        let eg: Vec<f64> = r.iter().map(|ri| s.cos() * ri).collect();
        assert_vec_near(&g, &eg, 1e-12, "sin_dot_hvp gradient");
        let ehv: Vec<f64> = r.iter().map(|ri| -s.sin() * ri * dot(&r, &v)).collect();
        assert_vec_near(&hv, &ehv, 1e-12, "sin_dot_hvp");
        let (_, _, h) = gr::sin_dot_hessian(&x, &r);
        let hv2: Vec<f64> = h.iter().map(|row| dot(row, &v)).collect();
        assert_vec_near(&hv2, &hv, 1e-12, "sin_dot_hessian times v");
    }
    two_slices!(
        "vector_product",
        4,
        gr::vector_product,
        gr::vector_product_grad,
        gr::vector_product_jvp,
        gr::vector_product_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = gr::vector_product_hessian(&x[..4], &x[4..]);
        (v, [a, b].concat(), h)
    })
    .run(POINTS, range(8, -1.0, 1.0));
    // `test_enclosing_scope_ref`: x * x; and (x * x) * (2 x) = 2 x^3.
    one(
        "enclosing_scope_ref",
        gr::enclosing_scope_ref,
        gr::enclosing_scope_ref_grad,
        gr::enclosing_scope_ref_jvp,
        gr::enclosing_scope_ref_grad_into,
    )
    .hessian(hess1(
        gr::enclosing_scope_ref_hessian,
        gr::enclosing_scope_ref_derivatives,
    ))
    .analytic(|x| vec![4.0 * x[0]])
    .run(POINTS, range(1, -2.0, 2.0));
    one(
        "enclosing_scope_twice",
        gr::enclosing_scope_twice,
        gr::enclosing_scope_twice_grad,
        gr::enclosing_scope_twice_jvp,
        gr::enclosing_scope_twice_grad_into,
    )
    .hessian(hess1(
        gr::enclosing_scope_twice_hessian,
        gr::enclosing_scope_twice_derivatives,
    ))
    .analytic(|x| vec![6.0 * x[0] * x[0]])
    .run(POINTS, range(1, -2.0, 2.0));
    // `test_mutating_outgrad`: e = 3a + 3.5; sum(e^2) has gradient 6 e.
    slice(
        "mutating_outgrad",
        gr::mutating_outgrad,
        gr::mutating_outgrad_grad,
        gr::mutating_outgrad_jvp,
        gr::mutating_outgrad_grad_into,
    )
    .hessian(gr::mutating_outgrad_hessian)
    .analytic(|a| a.iter().map(|v| 6.0 * (3.0 * v + 3.5)).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "mutating_outgrad_from_indexing",
        gr::mutating_outgrad_from_indexing,
        gr::mutating_outgrad_from_indexing_grad,
        gr::mutating_outgrad_from_indexing_jvp,
        gr::mutating_outgrad_from_indexing_grad_into,
    )
    .hessian(gr::mutating_outgrad_from_indexing_hessian)
    .run(POINTS, range(5, -2.0, 2.0));
    two_slices!(
        "separate_parts",
        3,
        gr::separate_parts,
        gr::separate_parts_grad,
        gr::separate_parts_jvp,
        gr::separate_parts_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = gr::separate_parts_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let mut g: Flat = x[..3]
            .iter()
            .map(|v| 1.4 * v.abs().powf(0.4) * v.signum())
            .collect();
        g.extend(x[3..].iter().map(|v| 1.3 * v.abs().powf(0.3) * v.signum()));
        g
    })
    .run(POINTS, away_from(6, -2.0, 2.0, 100.0, 0.0));
    // `test_singleton_array_output`: over a 3x3 array, gradient cos, Hessian diagonal -sin.
    let m3 = |x: &[f64]| -> [[f64; 3]; 3] {
        let mut m = [[0.0; 3]; 3];
        for i in 0..9 {
            m[i / 3][i % 3] = x[i];
        }
        m
    };
    let flat3 = |m: [[f64; 3]; 3]| -> Flat { m.iter().flatten().copied().collect() };
    Probe::new("matrix_sin_sum", |x| gr::matrix_sin_sum(m3(x)))
        .grad(|x| {
            let (v, g) = gr::matrix_sin_sum_grad(m3(x));
            (v, flat3(g))
        })
        .jvp(|x, t| gr::matrix_sin_sum_jvp(m3(x), m3(t)))
        .grad_into(|x| {
            let mut g = [[GARBAGE; 3]; 3];
            let v = gr::matrix_sin_sum_grad_into(m3(x), &mut g);
            (v, flat3(g))
        })
        .hessian(|x| {
            let (v, g, h) = gr::matrix_sin_sum_hessian(m3(x));
            for i in 0..9 {
                for j in 0..9 {
                    let e = if i == j { -x[i].sin() } else { 0.0 };
                    assert_near(h[i][j], e, 1e-14, 0.0, "matrix_sin_sum_hessian");
                }
            }
            (v, flat3(g), h)
        })
        .analytic(|x| x.iter().map(|v| v.cos()).collect())
        .run(POINTS, range(9, -2.0, 2.0));
    let rows = |x: &[f64], c: usize| -> Vec<Vec<f64>> { x.chunks(c).map(|r| r.to_vec()).collect() };
    Probe::new("axis0_sums", move |x| gr::axis0_sums(&rows(x, 3)))
        .grad(move |x| {
            let (v, g) = gr::axis0_sums_grad(&rows(x, 3));
            (v, g.concat())
        })
        .jvp(move |x, t| gr::axis0_sums_jvp(&rows(x, 3), rows(t, 3)))
        .grad_into(move |x| {
            let mut g = vec![vec![GARBAGE; 3]; 2];
            let v = gr::axis0_sums_grad_into(&rows(x, 3), &mut g);
            (v, g.concat())
        })
        .hessian(move |x| {
            let (v, g, h) = gr::axis0_sums_hessian(&rows(x, 3));
            (v, g.concat(), h)
        })
        .run(POINTS, range(6, -2.0, 2.0));
}

#[test]
fn autograd_wrappers() {
    use graphs as gr;
    // `test_return_both`: the value of `_grad` is the function's, bit for bit.
    let (v, d) = gr::return_both_grad(1.7);
    assert_eq!(v, gr::return_both(1.7));
    assert_near(d, 9.6 * 1.7f64.powf(2.2), 1e-14, 0.0, "return_both");
    one(
        "return_both",
        gr::return_both,
        gr::return_both_grad,
        gr::return_both_jvp,
        gr::return_both_grad_into,
    )
    .hessian(hess1(gr::return_both_hessian, gr::return_both_derivatives))
    .run(POINTS, range(1, 0.2, 3.0));
    slice(
        "sum_sin_sq",
        gr::sum_sin_sq,
        gr::sum_sin_sq_grad,
        gr::sum_sin_sq_jvp,
        gr::sum_sin_sq_grad_into,
    )
    .hessian(gr::sum_sin_sq_hessian)
    .analytic(|x| x.iter().map(|v| (2.0 * v).sin()).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    // `test_hessian`: the Hessian of `x . H x` is `H + H^T`, exactly (rounding aside), at any x.
    let mut rng = Lcg::new(5);
    let h: Vec<Vec<f64>> = (0..4).map(|_| rng.vec(4, -1.0, 1.0)).collect();
    for _ in 0..10 {
        let x = rng.vec(4, -2.0, 2.0);
        let (v, g, hh) = gr::quadratic_hessian(&x, &h);
        assert_near(v, gr::quadratic(&x, &h), 1e-14, 0.0, "quadratic value");
        for i in 0..4 {
            let gi: f64 = (0..4).map(|j| (h[i][j] + h[j][i]) * x[j]).sum();
            assert_near(g[i], gi, 1e-12, 1.0, "quadratic gradient");
            for j in 0..4 {
                assert_near(hh[i][j], h[i][j] + h[j][i], 1e-14, 1.0, "quadratic Hessian");
            }
        }
        let (_, g2) = gr::quadratic_grad(&x, &h);
        assert_vec_near(&g2, &g, 1e-14, "quadratic_grad");
    }
    // `test_multigrad`: only `d` and `b`, in the `wrt` order? In declaration order (API.md): (b, d).
    let (a, b, c, d, e, f, g) = (0.5, -0.3, 0.2, -1.1, 0.7, 0.6, -0.1);
    let (v, (gb, gd)) = gr::complicated_grad(a, b, c, d, e, f, g);
    assert_eq!(v, gr::complicated(a, b, c, d, e, f, g));
    assert_near(gb, b.cos(), 1e-15, 0.0, "complicated d/db");
    assert_near(gd, -d.sin(), 1e-15, 0.0, "complicated d/dd");
    let (_, _, hm) = gr::complicated_hessian(a, b, c, d, e, f, g);
    assert_eq!(hm.len(), 2);
    assert_near(hm[0][0], -b.sin(), 1e-15, 0.0, "complicated H[b][b]");
    assert_near(hm[1][1], -d.cos(), 1e-15, 0.0, "complicated H[d][d]");
    assert_eq!((hm[0][1], hm[1][0]), (0.0, 0.0));
    // `test_elementwise_grad`.
    slice(
        "elementwise",
        gr::elementwise,
        gr::elementwise_grad,
        gr::elementwise_jvp,
        gr::elementwise_grad_into,
    )
    .hessian(gr::elementwise_hessian)
    .analytic(|x| x.iter().map(|v| 1.0 + v.cos() + v.sinh()).collect())
    .run(POINTS, range(10, -2.0, 2.0));
    // `test_hessian_matrix_product`: `f_hvp` over a 5x4 array against `H v` from `f_hessian`.
    let m54 = |x: &[f64]| -> [[f64; 4]; 5] {
        let mut m = [[0.0; 4]; 5];
        for i in 0..20 {
            m[i / 4][i % 4] = x[i];
        }
        m
    };
    for _ in 0..10 {
        let x = rng.vec(20, -2.0, 2.0);
        let v = rng.vec(20, -1.0, 1.0);
        let (val, g, hv) = gr::sum_sin_matrix_hvp(m54(&x), m54(&v));
        let (val2, g2, h) = gr::sum_sin_matrix_hessian(m54(&x));
        assert_eq!(val, val2);
        assert_eq!(g, g2);
        let hv: Flat = hv.iter().flatten().copied().collect();
        let ehv: Flat = (0..20).map(|i| -x[i].sin() * v[i]).collect();
        assert_vec_near(&hv, &ehv, 1e-14, "sum_sin_matrix_hvp");
        let hv2: Flat = h.iter().map(|row| dot(row, &v)).collect();
        assert_vec_near(&hv2, &ehv, 1e-14, "sum_sin_matrix_hessian times v");
    }
    // `test_vector_jacobian_product`: `roll(sin(a), 1)`.
    check_vector(
        "roll_sin",
        POINTS,
        range(5, -2.0, 2.0),
        &|x| gr::roll_sin(x),
        &|x, c| gr::roll_sin_vjp(x, c.to_vec()),
        &|x, t| gr::roll_sin_jvp(x, t.to_vec()),
        Some(&|x| gr::roll_sin_jacobian(x)),
    );
    // `test_checkpoint_correctness`: foo(x) = 4x + x/3 + x^2 + 10.
    one("foo", gr::foo, gr::foo_grad, gr::foo_jvp, gr::foo_grad_into)
        .hessian(hess1(gr::foo_hessian, gr::foo_derivatives))
        .analytic(|x| vec![4.0 + 1.0 / 3.0 + 2.0 * x[0]])
        .run(POINTS, range(1, -3.0, 3.0));
    assert_eq!(gr::foo_derivatives(3.0)[2], 2.0);
}

/// A probe of one slice at `order = 2`, by its module and name: `slice` plus `f_hessian`.
macro_rules! slice2 {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident) => {
        slice(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi).hessian($m::$h)
    };
}

#[test]
fn autograd_numpy_reductions() {
    use numpy_ops as np;
    slice2!(np::mean, mean_grad, mean_jvp, mean_grad_into, mean_hessian)
        .analytic(|x| {
            let m = x.iter().sum::<f64>() / x.len() as f64;
            vec![3.0 * m * m / x.len() as f64; x.len()]
        })
        .run(POINTS, range(4, -2.0, 2.0));
    slice2!(np::prod, prod_grad, prod_jvp, prod_grad_into, prod_hessian)
        .analytic(|x| {
            (0..x.len())
                .map(|i| (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product())
                .collect()
        })
        .run(POINTS, range(4, -2.0, 2.0));
    slice2!(
        np::prod_chain,
        prod_chain_grad,
        prod_chain_jvp,
        prod_chain_grad_into,
        prod_chain_hessian
    )
    .run(POINTS, range(4, -2.0, 2.0));
    slice2!(np::var, var_grad, var_jvp, var_grad_into, var_hessian)
        .analytic(|x| {
            let n = x.len() as f64;
            let m = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * (v - m) / n).collect()
        })
        .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        np::std_ddof,
        std_ddof_grad,
        std_ddof_jvp,
        std_ddof_grad_into,
        std_ddof_hessian
    )
    .analytic(|x| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let s = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        x.iter().map(|v| (v - m) / ((n - 1.0) * s)).collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        np::max_loop,
        max_loop_grad,
        max_loop_jvp,
        max_loop_grad_into,
        max_loop_hessian
    )
    .analytic(|x| {
        let k = (0..x.len()).fold(0, |k, i| if x[i] > x[k] { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[k] = 2.0 * x[k] + 1.0;
        g
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        np::min_fold,
        min_fold_grad,
        min_fold_jvp,
        min_fold_grad_into,
        min_fold_hessian
    )
    .analytic(|x| {
        let m = x.iter().fold(f64::INFINITY, |a, &b| a.min(b));
        x.iter()
            .map(|&v| if v == m { m.exp() } else { 0.0 })
            .collect()
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        np::diff_sq,
        diff_sq_grad,
        diff_sq_jvp,
        diff_sq_grad_into,
        diff_sq_hessian
    )
    .run(POINTS, range(5, -2.0, 2.0));
    two_slices!(
        "dot_tanh",
        3,
        np::dot_tanh,
        np::dot_tanh_grad,
        np::dot_tanh_jvp,
        np::dot_tanh_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = np::dot_tanh_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let s = 1.0 - dot(&x[..3], &x[3..]).tanh().powi(2);
        let mut g: Flat = x[3..].iter().map(|b| s * b).collect();
        g.extend(x[..3].iter().map(|a| s * a));
        g
    })
    .run(POINTS, range(6, -1.5, 1.5));
    two_slices!(
        "outer_weighted",
        2,
        np::outer_weighted,
        np::outer_weighted_grad,
        np::outer_weighted_jvp,
        np::outer_weighted_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = np::outer_weighted_hessian(&x[..2], &x[2..]);
        (v, [a, b].concat(), h)
    })
    .run(POINTS, range(5, -1.5, 1.5));
    let m3 = |x: &[f64]| -> [[f64; 3]; 3] {
        [[x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]]]
    };
    let flat3 = |m: [[f64; 3]; 3]| -> Flat { m.iter().flatten().copied().collect() };
    Probe::new("trace_ata", |x| np::trace_ata(m3(x)))
        .grad(|x| {
            let (v, g) = np::trace_ata_grad(m3(x));
            (v, flat3(g))
        })
        .jvp(|x, t| np::trace_ata_jvp(m3(x), m3(t)))
        .grad_into(|x| {
            let mut g = [[GARBAGE; 3]; 3];
            let v = np::trace_ata_grad_into(m3(x), &mut g);
            (v, flat3(g))
        })
        .hessian(|x| {
            let (v, g, h) = np::trace_ata_hessian(m3(x));
            (v, flat3(g), h)
        })
        .analytic(|x| x.iter().map(|v| v / norm(x)).collect())
        .run(POINTS, range(9, -2.0, 2.0));
    Probe::new("det3", |x| np::det3(m3(x)))
        .grad(|x| {
            let (v, g) = np::det3_grad(m3(x));
            (v, flat3(g))
        })
        .jvp(|x, t| np::det3_jvp(m3(x), m3(t)))
        .hessian(|x| {
            let (v, g, h) = np::det3_hessian(m3(x));
            (v, flat3(g), h)
        })
        .analytic(|x| {
            // The gradient of det is the cofactor matrix.
            let m = m3(x);
            let mut c = [[0.0; 3]; 3];
            for i in 0..3 {
                for j in 0..3 {
                    let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
                    let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
                    c[i][j] = m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
                }
            }
            flat3(c)
        })
        .run(POINTS, range(9, -2.0, 2.0));
    slice2!(
        np::norm2,
        norm2_grad,
        norm2_jvp,
        norm2_grad_into,
        norm2_hessian
    )
    .analytic(|x| x.iter().map(|v| v / norm(x)).collect())
    .run(POINTS, range(4, -2.0, 2.0));
    let t3 = |x: &[f64]| -> [[[f64; 2]; 2]; 2] {
        let mut t = [[[0.0; 2]; 2]; 2];
        for i in 0..8 {
            t[i / 4][(i / 2) % 2][i % 2] = x[i];
        }
        t
    };
    let flat_t =
        |t: [[[f64; 2]; 2]; 2]| -> Flat { t.iter().flatten().flatten().copied().collect() };
    Probe::new("tensordot", move |x| {
        np::tensordot(t3(&x[..8]), t3(&x[8..]))
    })
    .grad(move |x| {
        let (v, (a, b)) = np::tensordot_grad(t3(&x[..8]), t3(&x[8..]));
        (v, [flat_t(a), flat_t(b)].concat())
    })
    .jvp(move |x, t| np::tensordot_jvp(t3(&x[..8]), t3(&x[8..]), (t3(&t[..8]), t3(&t[8..]))))
    .hessian(move |x| {
        let (v, (a, b), h) = np::tensordot_hessian(t3(&x[..8]), t3(&x[8..]));
        (v, [flat_t(a), flat_t(b)].concat(), h)
    })
    .run(POINTS, range(16, -1.5, 1.5));
    let rows = |x: &[f64], c: usize| -> Vec<Vec<f64>> { x.chunks(c).map(|r| r.to_vec()).collect() };
    Probe::new("triu_sum", move |x| np::triu_sum(&rows(x, 3)))
        .grad(move |x| {
            let (v, g) = np::triu_sum_grad(&rows(x, 3));
            (v, g.concat())
        })
        .jvp(move |x, t| np::triu_sum_jvp(&rows(x, 3), rows(t, 3)))
        .grad_into(move |x| {
            let mut g = vec![vec![GARBAGE; 3]; 3];
            let v = np::triu_sum_grad_into(&rows(x, 3), &mut g);
            (v, g.concat())
        })
        .hessian(move |x| {
            let (v, g, h) = np::triu_sum_hessian(&rows(x, 3));
            (v, g.concat(), h)
        })
        .run(POINTS, range(9, -2.0, 2.0));
}

#[test]
fn autograd_numpy_elementwise() {
    use numpy_ops as np;
    slice2!(
        np::clip_sq,
        clip_sq_grad,
        clip_sq_jvp,
        clip_sq_grad_into,
        clip_sq_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| if v.abs() < 1.0 { 4.0 * v } else { v.signum() })
            .collect()
    })
    .run(POINTS, away_from(5, -2.5, 2.5, 1.0, 0.0));
    slice2!(
        np::where_leaky,
        where_leaky_grad,
        where_leaky_jvp,
        where_leaky_grad_into,
        where_leaky_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| if v > 0.0 { 3.0 * v * v } else { 0.003 * v * v })
            .collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice2!(
        np::sorted_weighted,
        sorted_weighted_grad,
        sorted_weighted_jvp,
        sorted_weighted_grad_into,
        sorted_weighted_hessian
    )
    .analytic(|x| {
        // Each element's weight is its rank in the sorted order.
        x.iter()
            .map(|&v| {
                let rank = x.iter().filter(|&&w| w < v).count();
                2.0 * (rank as f64 + 1.0) * v
            })
            .collect()
    })
    .run(POINTS, distinct(6, -2.0, 2.0, 0.01));
    slice2!(
        np::running_max,
        running_max_grad,
        running_max_jvp,
        running_max_grad_into,
        running_max_hessian
    )
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        np::total_variation,
        total_variation_grad,
        total_variation_jvp,
        total_variation_grad_into,
        total_variation_hessian
    )
    .run(POINTS, distinct(5, -2.0, 2.0, 0.01));
    slice2!(
        np::flip_discounted,
        flip_discounted_grad,
        flip_discounted_jvp,
        flip_discounted_grad_into,
        flip_discounted_hessian
    )
    .analytic(|x| {
        let n = x.len();
        (0..n)
            .map(|i| 0.5f64.powi((n - 1 - i) as i32) * x[i].cos())
            .collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    two_slices!(
        "concat_tile",
        2,
        np::concat_tile,
        np::concat_tile_grad,
        np::concat_tile_jvp,
        np::concat_tile_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = np::concat_tile_hessian(&x[..2], &x[2..]);
        (v, [a, b].concat(), h)
    })
    .run(POINTS, range(5, -1.5, 1.5));
    // Functions with vector results: the Jacobian, vjp and jvp.
    check_vector(
        "cumsum",
        POINTS,
        range(5, -2.0, 2.0),
        &|x| np::cumsum(x),
        &|x, c| np::cumsum_vjp(x, c.to_vec()),
        &|x, t| np::cumsum_jvp(x, t.to_vec()),
        Some(&|x| np::cumsum_jacobian(x)),
    );
    // Exactly lower triangular ones.
    let j = np::cumsum_jacobian(&[0.3, 0.1, -0.2]);
    assert_eq!(
        j,
        vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 1.0, 0.0],
            vec![1.0, 1.0, 1.0]
        ]
    );
    check_vector(
        "cumprod",
        POINTS,
        range(5, -2.0, 2.0),
        &|x| np::cumprod(x),
        &|x, c| np::cumprod_vjp(x, c.to_vec()),
        &|x, t| np::cumprod_jvp(x, t.to_vec()),
        Some(&|x| np::cumprod_jacobian(x)),
    );
    let rows = |x: &[f64]| -> Vec<Vec<f64>> { x[..6].chunks(3).map(|r| r.to_vec()).collect() };
    check_vector(
        "matvec",
        POINTS,
        range(9, -2.0, 2.0),
        &|x| np::matvec(&rows(x), &x[6..]),
        &|x, c| {
            let (y, (ga, gx)) = np::matvec_vjp(&rows(x), &x[6..], c.to_vec());
            (y, [ga.concat(), gx].concat())
        },
        &|x, t| np::matvec_jvp(&rows(x), &x[6..], (rows(t), t[6..].to_vec())),
        Some(&|x| np::matvec_jacobian(&rows(x), &x[6..])),
    );
    let a3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    check_vector(
        "cross",
        POINTS,
        range(6, -2.0, 2.0),
        &|x| np::cross(a3(x), a3(&x[3..])).to_vec(),
        &|x, c| {
            let (y, (ga, gb)) = np::cross_vjp(a3(x), a3(&x[3..]), a3(c));
            (y.to_vec(), [ga, gb].concat())
        },
        &|x, t| {
            let (y, d) = np::cross_jvp(a3(x), a3(&x[3..]), (a3(t), a3(&t[3..])));
            (y.to_vec(), d.to_vec())
        },
        Some(&|x| np::cross_jacobian(a3(x), a3(&x[3..]))),
    );
    // Output parameters: the normalised vector written into `out`, the norm returned.
    let mut rng = Lcg::new(41);
    for _ in 0..POINTS {
        let x = rng.vec(4, -2.0, 2.0);
        let r = norm(&x);
        let mut out = [GARBAGE; 4];
        let (v, g) = np::normalize_into_grad(&x, &mut out);
        assert_near(v, r, 1e-14, 0.0, "normalize_into value");
        for i in 0..4 {
            assert_near(out[i], x[i] / r, 1e-14, 0.0, "normalize_into output");
        }
        assert_vec_near(
            &g,
            &x.iter().map(|v| v / r).collect::<Flat>(),
            1e-12,
            "normalize_into_grad",
        );
        // The vjp with a cotangent on the output too: d/dx (c0 r + c . x / r).
        let c0 = rng.uniform(-1.0, 1.0);
        let c = rng.vec(4, -1.0, 1.0);
        let (v2, g2) = np::normalize_into_vjp(&x, &mut out, c0, &c);
        assert_eq!(v2, v);
        let f = |z: &[f64]| {
            let mut o = [0.0; 4];
            let r = np::normalize_into(z, &mut o);
            c0 * r + dot(&c, &o)
        };
        assert_vec_near(&g2, &fd_gradient(&f, &x), 1e-6, "normalize_into_vjp");
        let t = rng.vec(4, -1.0, 1.0);
        let mut dout = [GARBAGE; 4];
        let (v3, dv) = np::normalize_into_jvp(&x, &mut out, t.clone(), &mut dout);
        assert_eq!(v3, v);
        assert_near(dv, dot(&g, &t), 1e-12, 1.0, "normalize_into_jvp");
        for i in 0..4 {
            let expected = t[i] / r - x[i] * dot(&x, &t) / (r * r * r);
            assert_near(dout[i], expected, 1e-12, 1.0, "normalize_into_jvp output");
        }
    }
    // The later loops read only what the loop over `0..z.len()` wrote: the incoming value of the buffer
    // is not an input (API.md), and `G` is `z`'s alone; buffers of NaN going in show any use of it.
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = np::softmax_into_vjp;
    check_vector(
        "softmax_into",
        POINTS,
        range(4, -3.0, 3.0),
        &|z| {
            let mut p = vec![GARBAGE; z.len()];
            np::softmax_into(z, &mut p);
            p
        },
        &|z, c| {
            let mut p = vec![GARBAGE; z.len()];
            let g = np::softmax_into_vjp(z, &mut p, c);
            (p, g)
        },
        &|z, t| {
            let mut p = vec![GARBAGE; z.len()];
            let mut d = vec![GARBAGE; z.len()];
            np::softmax_into_jvp(z, &mut p, t.to_vec(), &mut d);
            (p, d)
        },
        Some(&|z| {
            let mut p = vec![GARBAGE; z.len()];
            let j = np::softmax_into_jacobian(z, &mut p);
            for row in &j {
                assert_eq!(row.len(), z.len(), "softmax_into_jacobian: columns");
            }
            j
        }),
    );
}

/// The softmax of `z`.
fn softmax(z: &[f64]) -> Flat {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Flat = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// The gradient of mean cross-entropy of a linear softmax model by hand: `(p - onehot) x^T / n`.
fn xent_formula(w: &[f64], x: &[f64], labels: &[usize], k: usize) -> Flat {
    let d = w.len() / k;
    let n = labels.len();
    let mut g = vec![0.0; w.len()];
    for (e, &y) in labels.iter().enumerate() {
        let z: Flat = (0..k)
            .map(|c| dot(&w[c * d..(c + 1) * d], &x[e * d..(e + 1) * d]))
            .collect();
        let p = softmax(&z);
        for c in 0..k {
            let r = p[c] - if c == y { 1.0 } else { 0.0 };
            for j in 0..d {
                g[c * d + j] += r * x[e * d + j] / n as f64;
            }
        }
    }
    g
}

#[test]
fn losses_and_likelihoods() {
    use losses as lo;
    let mut rng = Lcg::new(7);
    let (k, d, n) = (3, 2, 4);
    let x = rng.vec(n * d, -2.0, 2.0);
    let labels = [0usize, 2, 1, 2];
    // Three spellings of one loss: the same values and gradients, and the formula.
    type Xent = (
        &'static str,
        fn(&[f64], &[f64], &[usize], usize) -> f64,
        fn(&[f64], &[f64], &[usize], usize) -> (f64, Vec<f64>),
        fn(&[f64], &[f64], &[usize], usize, Vec<f64>) -> (f64, f64),
        fn(&[f64], &[f64], &[usize], usize, &mut [f64]) -> f64,
        fn(&[f64], &[f64], &[usize], usize) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    );
    let spellings: [Xent; 2] = [
        (
            "xent_rows",
            lo::xent_rows,
            lo::xent_rows_grad,
            lo::xent_rows_jvp,
            lo::xent_rows_grad_into,
            lo::xent_rows_hessian,
        ),
        (
            "xent_lse",
            lo::xent_lse,
            lo::xent_lse_grad,
            lo::xent_lse_jvp,
            lo::xent_lse_grad_into,
            lo::xent_lse_hessian,
        ),
    ];
    for (name, f, g, j, gi, h) in spellings {
        let (x, labels) = (&x, &labels);
        Probe::new(name, move |w| f(w, x, labels, k))
            .grad(move |w| g(w, x, labels, k))
            .jvp(move |w, t| j(w, x, labels, k, t.to_vec()))
            .grad_into(move |w| {
                let mut b = vec![GARBAGE; w.len()];
                let v = gi(w, x, labels, k, &mut b);
                (v, b)
            })
            .hessian(move |w| h(w, x, labels, k))
            .analytic(move |w| xent_formula(w, x, labels, k))
            .run(POINTS, range(k * d, -1.5, 1.5));
    }
    let w = rng.vec(k * d, -1.0, 1.0);
    assert_near(
        lo::xent_rows(&w, &x, &labels, k),
        lo::xent_lse(&w, &x, &labels, k),
        1e-13,
        0.0,
        "two spellings",
    );
    // Large logits: with `logsumexp` (the maximum subtracted) the value and gradient stay finite and
    // right (`xent_rows` takes the log of a probability that underflows there, in its value too).
    let big: Flat = w.iter().map(|v| v * 400.0).collect();
    let (v, g) = lo::xent_lse_grad(&big, &x, &labels, k);
    assert!(v.is_finite(), "xent_lse at large logits: {v}");
    assert_vec_near(
        &g,
        &xent_formula(&big, &x, &labels, k),
        1e-12,
        "xent_lse_grad at large logits",
    );
    for y in 0..3 {
        Probe::new("xent_chain", move |z| lo::xent_chain(z, y))
            .grad(move |z| lo::xent_chain_grad(z, y))
            .jvp(move |z, t| lo::xent_chain_jvp(z, y, t.to_vec()))
            .hessian(move |z| lo::xent_chain_hessian(z, y))
            .analytic(move |z| {
                let mut p = softmax(z);
                p[y] -= 1.0;
                p
            })
            .run(POINTS, distinct(3, -3.0, 3.0, 0.01));
    }
    // The Hessian of cross-entropy in the logits is diag(p) - p p^T.
    let z = [0.3, -1.2, 2.0];
    let (_, _, hz) = lo::xent_chain_hessian(&z, 1);
    let p = softmax(&z);
    for i in 0..3 {
        for j in 0..3 {
            let e = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            assert_near(hz[i][j], e, 1e-13, 0.0, "xent_chain_hessian");
        }
    }
    two_slices!(
        "xent_soft",
        3,
        lo::xent_soft,
        lo::xent_soft_grad,
        lo::xent_soft_jvp,
        lo::xent_soft_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = lo::xent_soft_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .analytic(|x| {
        let (z, t) = (&x[..3], &x[3..]);
        let p = softmax(z);
        let st: f64 = t.iter().sum();
        let mut g: Flat = (0..3).map(|i| st * p[i] - t[i]).collect();
        let lse = lo::logsumexp(z);
        g.extend(z.iter().map(|v| lse - v));
        g
    })
    .run(POINTS, range(6, -2.0, 2.0));
    // Likelihoods.
    let data = rng.vec(6, -1.0, 3.0);
    let dref = &data;
    Probe::new("gauss_nll", move |p| lo::gauss_nll(p[0], p[1], dref))
        .grad(move |p| {
            let (v, (a, b)) = lo::gauss_nll_grad(p[0], p[1], dref);
            (v, vec![a, b])
        })
        .jvp(move |p, t| lo::gauss_nll_jvp(p[0], p[1], dref, (t[0], t[1])))
        .grad_into(move |p| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = lo::gauss_nll_grad_into(p[0], p[1], dref, (&mut a, &mut b));
            (v, vec![a, b])
        })
        .hessian(move |p| {
            let (v, (a, b), h) = lo::gauss_nll_hessian(p[0], p[1], dref);
            (v, vec![a, b], h)
        })
        .analytic(move |p| {
            let s2 = (2.0 * p[1]).exp();
            let dm: f64 = dref.iter().map(|x| -(x - p[0]) / s2).sum();
            let ds: f64 = dref.iter().map(|x| 1.0 - (x - p[0]).powi(2) / s2).sum();
            vec![dm, ds]
        })
        .run(POINTS, range(2, -1.0, 1.0));
    let xs = rng.vec(8, -1.0, 1.0);
    let counts = [0usize, 3, 1, 5];
    let (xr, cr) = (&xs, &counts);
    Probe::new("poisson_loglik", move |w| lo::poisson_loglik(w, xr, cr))
        .grad(move |w| lo::poisson_loglik_grad(w, xr, cr))
        .jvp(move |w, t| lo::poisson_loglik_jvp(w, xr, cr, t.to_vec()))
        .hessian(move |w| lo::poisson_loglik_hessian(w, xr, cr))
        .analytic(move |w| {
            let mut g = vec![0.0; 2];
            for i in 0..4 {
                let eta = dot(w, &xr[2 * i..2 * i + 2]);
                for j in 0..2 {
                    g[j] += (cr[i] as f64 - eta.exp()) * xr[2 * i + j];
                }
            }
            g
        })
        .run(POINTS, range(2, -1.0, 1.0));
    let ys = [true, false, false, true];
    let yr = &ys;
    Probe::new("logistic_loglik", move |p| {
        lo::logistic_loglik(&p[..2], p[2], xr, yr)
    })
    .grad(move |p| {
        let (v, (gw, gb)) = lo::logistic_loglik_grad(&p[..2], p[2], xr, yr);
        (v, [gw, vec![gb]].concat())
    })
    .jvp(move |p, t| lo::logistic_loglik_jvp(&p[..2], p[2], xr, yr, (t[..2].to_vec(), t[2])))
    .hessian(move |p| {
        let (v, (gw, gb), h) = lo::logistic_loglik_hessian(&p[..2], p[2], xr, yr);
        (v, [gw, vec![gb]].concat(), h)
    })
    .analytic(move |p| {
        let mut g = vec![0.0; 3];
        for i in 0..4 {
            let t = p[2] + dot(&p[..2], &xr[2 * i..2 * i + 2]);
            let r = if yr[i] { 1.0 } else { 0.0 } - 1.0 / (1.0 + (-t).exp());
            g[0] += r * xr[2 * i];
            g[1] += r * xr[2 * i + 1];
            g[2] += r;
        }
        g
    })
    .run(POINTS, range(3, -3.0, 3.0));
    let a3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    // The data is active too (no `wrt`): the inputs are the three parameters, then six data points.
    Probe::new("mixture_loglik", move |p| {
        lo::mixture_loglik(a3(p), &p[3..])
    })
    .grad(move |p| {
        let (v, (g, gd)) = lo::mixture_loglik_grad(a3(p), &p[3..]);
        (v, [g.to_vec(), gd].concat())
    })
    .jvp(move |p, t| lo::mixture_loglik_jvp(a3(p), &p[3..], (a3(t), t[3..].to_vec())))
    .grad_into(move |p| {
        let mut g = [GARBAGE; 3];
        let mut gd = vec![GARBAGE; 6];
        let v = lo::mixture_loglik_grad_into(a3(p), &p[3..], (&mut g, &mut gd));
        (v, [g.to_vec(), gd].concat())
    })
    .hessian(move |p| {
        let (v, (g, gd), h) = lo::mixture_loglik_hessian(a3(p), &p[3..]);
        (v, [g.to_vec(), gd].concat(), h)
    })
    .run(POINTS, range(9, -2.0, 2.0));
    Probe::new("student_t", move |p| lo::student_t(p[0], p[1], 3.5, dref))
        .grad(move |p| {
            let (v, (a, b)) = lo::student_t_grad(p[0], p[1], 3.5, dref);
            (v, vec![a, b])
        })
        .jvp(move |p, t| lo::student_t_jvp(p[0], p[1], 3.5, dref, (t[0], t[1])))
        .hessian(move |p| {
            let (v, (a, b), h) = lo::student_t_hessian(p[0], p[1], 3.5, dref);
            (v, vec![a, b], h)
        })
        .run(POINTS, range(2, -1.0, 1.0));
    let laplace_data: Flat = vec![0.5, -1.0, 2.0, 1.5];
    let lr = &laplace_data;
    // Away from the kinks at the data.
    Probe::new("laplace_nll", move |p| lo::laplace_nll(p[0], lr))
        .grad(move |p| {
            let (v, (a, _)) = lo::laplace_nll_grad(p[0], lr);
            (v, vec![a])
        })
        .analytic(move |p| vec![lr.iter().map(|x| -(x - p[0]).signum() * x).sum()])
        .run(POINTS, away_from(1, -2.0, 3.0, 0.5, 0.0));
    // `laplace_nll`'s data is active too: its gradient is |x - loc| + x sign(x - loc).
    let (_, (_, gd)) = lo::laplace_nll_grad(0.2, lr);
    let e: Flat = lr
        .iter()
        .map(|x| (x - 0.2).abs() + x * (x - 0.2).signum())
        .collect();
    assert_vec_near(&gd, &e, 1e-14, "laplace_nll_grad in the data");
    let (xs2, ys2) = ([-1.0, 0.0, 1.0, 2.0, 3.0], [0.5, -1.0, 4.0, 1.0, 2.5]);
    let a2 = |x: &[f64]| -> [f64; 2] { [x[0], x[1]] };
    Probe::new("huber_regression", move |w| {
        lo::huber_regression(a2(w), &xs2, &ys2)
    })
    .grad(move |w| {
        let (v, g) = lo::huber_regression_grad(a2(w), &xs2, &ys2);
        (v, g.to_vec())
    })
    .jvp(move |w, t| lo::huber_regression_jvp(a2(w), &xs2, &ys2, a2(t)))
    .grad_into(move |w| {
        let mut g = [GARBAGE; 2];
        let v = lo::huber_regression_grad_into(a2(w), &xs2, &ys2, &mut g);
        (v, g.to_vec())
    })
    .hessian(move |w| {
        let (v, g, h) = lo::huber_regression_hessian(a2(w), &xs2, &ys2);
        (v, g.to_vec(), h)
    })
    .analytic(move |w| {
        let mut g = vec![0.0; 2];
        for i in 0..5 {
            let r = w[0] + w[1] * xs2[i] - ys2[i];
            let dr = r.clamp(-1.0, 1.0);
            g[0] += dr;
            g[1] += dr * xs2[i];
        }
        g
    })
    .run(POINTS, |r: &mut Lcg| loop {
        // Away from the seams |r| = 1.
        let w = r.vec(2, -2.0, 2.0);
        let ok = (0..5).all(|i| ((w[0] + w[1] * xs2[i] - ys2[i]).abs() - 1.0).abs() > 0.01);
        if ok {
            break w;
        }
    });
}

#[test]
fn physics_energies() {
    use physics as ph;
    // Lennard-Jones: four particles on a perturbed square, pairs never too close.
    slice2!(
        ph::lennard_jones,
        lennard_jones_grad,
        lennard_jones_jvp,
        lennard_jones_grad_into,
        lennard_jones_hessian
    )
    .analytic(|p| {
        let n = p.len() / 2;
        let mut g = vec![0.0; p.len()];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let (dx, dy) = (p[2 * i] - p[2 * j], p[2 * i + 1] - p[2 * j + 1]);
                let r2 = dx * dx + dy * dy;
                // dE/dr2 of 4 (r2^-6 - r2^-3).
                let de = 4.0 * (-6.0 * r2.powi(-7) + 3.0 * r2.powi(-4));
                g[2 * i] += 2.0 * dx * de;
                g[2 * i + 1] += 2.0 * dy * de;
            }
        }
        g
    })
    .run(POINTS, |r: &mut Lcg| {
        let base = [0.0, 0.0, 1.2, 0.0, 0.0, 1.2, 1.2, 1.2];
        base.iter().map(|b| b + r.uniform(-0.1, 0.1)).collect()
    });
    let a4 = |x: &[f64]| -> [f64; 4] { [x[0], x[1], x[2], x[3]] };
    Probe::new("morse_chain", move |x| ph::morse_chain(a4(x)))
        .grad(move |x| {
            let (v, g) = ph::morse_chain_grad(a4(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| ph::morse_chain_jvp(a4(x), a4(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 4];
            let v = ph::morse_chain_grad_into(a4(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = ph::morse_chain_hessian(a4(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, |r: &mut Lcg| {
            vec![
                0.0,
                r.uniform(0.5, 1.5),
                r.uniform(1.5, 2.5),
                r.uniform(2.5, 3.5),
            ]
        });
    let masses = [1.0, 2.5, 0.7];
    let at = [0.0, 0.0, 1.0, -0.5, -0.8, 1.2];
    let a2 = |x: &[f64]| -> [f64; 2] { [x[0], x[1]] };
    let (mr, ar) = (&masses, &at);
    Probe::new("gravity", move |p| ph::gravity(a2(p), mr, ar))
        .grad(move |p| {
            let (v, g) = ph::gravity_grad(a2(p), mr, ar);
            (v, g.to_vec())
        })
        .jvp(move |p, t| ph::gravity_jvp(a2(p), mr, ar, a2(t)))
        .hessian(move |p| {
            let (v, g, h) = ph::gravity_hessian(a2(p), mr, ar);
            (v, g.to_vec(), h)
        })
        .analytic(move |p| {
            let mut g = vec![0.0; 2];
            for k in 0..3 {
                let (dx, dy) = (p[0] - ar[2 * k], p[1] - ar[2 * k + 1]);
                let r3 = (dx * dx + dy * dy + 0.01).powf(1.5);
                g[0] += mr[k] * dx / r3;
                g[1] += mr[k] * dy / r3;
            }
            g
        })
        .run(POINTS, range(2, -2.0, 2.0));
    Probe::new("pendulum_energy", |x| {
        ph::pendulum_energy((x[0], x[1]), x[2])
    })
    .grad(|x| {
        let (v, ((a, b), c)) = ph::pendulum_energy_grad((x[0], x[1]), x[2]);
        (v, vec![a, b, c])
    })
    .jvp(|x, t| ph::pendulum_energy_jvp((x[0], x[1]), x[2], ((t[0], t[1]), t[2])))
    .hessian(|x| {
        let (v, ((a, b), c), h) = ph::pendulum_energy_hessian((x[0], x[1]), x[2]);
        (v, vec![a, b, c], h)
    })
    .analytic(|x| vec![x[2] * x[0].sin(), x[1], 1.0 - x[0].cos()])
    .run(POINTS, range(3, -2.0, 2.0));
    // Euler with a float `while`: smooth in `h` between the jumps of the trip count `ceil(1 / h)`.
    two(
        "euler_pendulum",
        ph::euler_pendulum,
        ph::euler_pendulum_grad,
        ph::euler_pendulum_jvp,
        ph::euler_pendulum_grad_into,
    )
    .hessian(hess2(ph::euler_pendulum_hessian))
    .run(POINTS, |r: &mut Lcg| loop {
        let h = r.uniform(0.02, 0.2);
        // Far from a change of the trip count (t accumulates rounding, so not too close).
        let steps = 1.0 / h;
        if (steps - steps.round()).abs() > 0.05 {
            break vec![r.uniform(-1.0, 1.0), h];
        }
    });
    two(
        "verlet_double_well",
        ph::verlet_double_well,
        ph::verlet_double_well_grad,
        ph::verlet_double_well_jvp,
        ph::verlet_double_well_grad_into,
    )
    .hessian(hess2(ph::verlet_double_well_hessian))
    .run(POINTS, range(2, -1.5, 1.5));
    two_slices!(
        "harmonic_ring",
        4,
        ph::harmonic_ring,
        ph::harmonic_ring_grad,
        ph::harmonic_ring_jvp,
        ph::harmonic_ring_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = ph::harmonic_ring_hessian(&x[..4], &x[4..]);
        // The stiffness matrix of a ring: 5 on the diagonal, -2.5 between neighbours; the mass matrix 1.
        for i in 0..4 {
            for j in 0..4 {
                let e = if i == j {
                    5.0
                } else if (i + 1) % 4 == j || (j + 1) % 4 == i {
                    -2.5
                } else {
                    0.0
                };
                assert_near(h[i][j], e, 1e-14, 0.0, "harmonic_ring stiffness");
                assert_near(
                    h[4 + i][4 + j],
                    if i == j { 1.0 } else { 0.0 },
                    1e-14,
                    0.0,
                    "harmonic_ring mass",
                );
                assert_eq!(h[i][4 + j], 0.0);
            }
        }
        (v, [a, b].concat(), h)
    })
    .run(POINTS, range(8, -2.0, 2.0));
    let a3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Probe::new("coulomb_line", move |x| ph::coulomb_line(a3(x)))
        .grad(move |x| {
            let (v, g) = ph::coulomb_line_grad(a3(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| ph::coulomb_line_jvp(a3(x), a3(t)))
        .hessian(move |x| {
            let (v, g, h) = ph::coulomb_line_hessian(a3(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, distinct(3, -2.0, 2.0, 0.3));
    two(
        "rk2_logistic",
        ph::rk2_logistic,
        ph::rk2_logistic_grad,
        ph::rk2_logistic_jvp,
        ph::rk2_logistic_grad_into,
    )
    .hessian(hess2(ph::rk2_logistic_hessian))
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(0.05, 0.95), r.uniform(0.5, 3.0)]
    });
    // Two output parameters and a scalar input: the Jacobian over (q, p, k), and the vjp with two
    // cotangents.
    let mut rng = Lcg::new(13);
    for _ in 0..POINTS {
        let x = rng.vec(7, -2.0, 2.0);
        let rhs = |z: &[f64]| -> Flat {
            let (mut dq, mut dp) = ([0.0; 3], [0.0; 3]);
            ph::spring_rhs(&z[..3], &z[3..6], z[6], &mut dq, &mut dp);
            [dq, dp].concat()
        };
        let columns = fd_columns(&rhs, &x);
        let (cq, cp) = (rng.vec(3, -1.0, 1.0), rng.vec(3, -1.0, 1.0));
        let (mut dq, mut dp) = ([GARBAGE; 3], [GARBAGE; 3]);
        let (gq, gp, gk) = ph::spring_rhs_vjp(&x[..3], &x[3..6], x[6], &mut dq, &mut dp, &cq, &cp);
        assert_eq!(
            [dq, dp].concat(),
            rhs(&x),
            "spring_rhs_vjp writes the outputs"
        );
        let g = [gq, gp, vec![gk]].concat();
        let c = [cq, cp].concat();
        for j in 0..7 {
            let e: f64 = (0..6).map(|i| c[i] * columns[j][i]).sum();
            assert_near(g[j], e, 1e-7, 1.0, &format!("spring_rhs_vjp[{j}]"));
        }
        let t = rng.vec(7, -1.0, 1.0);
        let (mut tq, mut tp) = ([GARBAGE; 3], [GARBAGE; 3]);
        ph::spring_rhs_jvp(
            &x[..3],
            &x[3..6],
            x[6],
            &mut dq,
            &mut dp,
            (t[..3].to_vec(), t[3..6].to_vec(), t[6]),
            &mut tq,
            &mut tp,
        );
        let d = [tq, tp].concat();
        for i in 0..6 {
            let e: f64 = (0..7).map(|j| columns[j][i] * t[j]).sum();
            assert_near(d[i], e, 1e-7, 1.0, &format!("spring_rhs_jvp[{i}]"));
        }
    }
}

#[test]
fn polynomials_and_control_flow() {
    use control as ct;
    Probe::new("horner", |x| ct::horner(&x[..4], x[4]))
        .grad(|x| {
            let (v, (gc, gx)) = ct::horner_grad(&x[..4], x[4]);
            (v, [gc, vec![gx]].concat())
        })
        .jvp(|x, t| ct::horner_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
        .grad_into(|x| {
            let (mut gc, mut gx) = (vec![GARBAGE; 4], GARBAGE);
            let v = ct::horner_grad_into(&x[..4], x[4], (&mut gc, &mut gx));
            (v, [gc, vec![gx]].concat())
        })
        .hessian(|x| {
            let (v, (gc, gx), h) = ct::horner_hessian(&x[..4], x[4]);
            (v, [gc, vec![gx]].concat(), h)
        })
        .analytic(|x| {
            let (c, z) = (&x[..4], x[4]);
            vec![
                z.powi(3),
                z * z,
                z,
                1.0,
                3.0 * c[0] * z * z + 2.0 * c[1] * z + c[2],
            ]
        })
        .run(POINTS, range(5, -2.0, 2.0));
    // The polynomial 1 - 2x + 0.5x^2 + 3x^3 - 0.25x^4 twice (by index, by fold; the fold's order is
    // reversed, so its coefficients are the other way round).
    let p = |x: f64| 1.0 - 2.0 * x + 0.5 * x * x + 3.0 * x.powi(3) - 0.25 * x.powi(4);
    let q = |x: f64| -0.25 + 3.0 * x + 0.5 * x * x - 2.0 * x.powi(3) + x.powi(4);
    for x in [-1.5, -0.2, 0.7, 2.0] {
        let d = ct::horner_fold_derivatives(x);
        let e = [
            p(x) + q(x),
            -2.0 + x + 9.0 * x * x - x.powi(3) + 3.0 + x - 6.0 * x * x + 4.0 * x.powi(3),
            1.0 + 18.0 * x - 3.0 * x * x + 1.0 - 12.0 * x + 12.0 * x * x,
            18.0 - 6.0 * x - 12.0 + 24.0 * x,
        ];
        assert_vec_near(&d, &e, 1e-12, &format!("horner_fold_derivatives at {x}"));
    }
    check_third(
        "horner_fold",
        ct::horner_fold_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    Probe::new("horner_with_derivative", |x| {
        ct::horner_with_derivative(&x[..4], x[4])
    })
    .grad(|x| {
        let (v, (gc, gx)) = ct::horner_with_derivative_grad(&x[..4], x[4]);
        (v, [gc, vec![gx]].concat())
    })
    .hessian(|x| {
        let (v, (gc, gx), h) = ct::horner_with_derivative_hessian(&x[..4], x[4]);
        (v, [gc, vec![gx]].concat(), h)
    })
    .run(POINTS, range(5, -2.0, 2.0));
    // Chebyshev: s = 0.5 + 0.25 x + sum_k T_k(x) / k; against cos(k acos x) on [-1, 1].
    for x in [-0.9, -0.3, 0.2, 0.8] {
        let t = |k: f64| (k * f64::acos(x)).cos();
        let dt = |k: f64| k * (k * x.acos()).sin() / (1.0 - x * x).sqrt();
        let d = ct::chebyshev_derivatives(x);
        let v = 0.5 + 0.25 * x + (2..7).map(|k| t(k as f64) / k as f64).sum::<f64>();
        let g = 0.25 + (2..7).map(|k| dt(k as f64) / k as f64).sum::<f64>();
        assert_near(d[0], v, 1e-12, 0.0, "chebyshev");
        assert_near(d[1], g, 1e-10, 0.0, "chebyshev'");
    }
    check_third("chebyshev", ct::chebyshev_derivatives, POINTS, -1.5, 1.5);
    // Newton's cube root: the derivative of the converged root, 1 / (3 a^(2/3)).
    one(
        "newton_cbrt",
        ct::newton_cbrt,
        ct::newton_cbrt_grad,
        ct::newton_cbrt_jvp,
        ct::newton_cbrt_grad_into,
    )
    .hessian(hess1(ct::newton_cbrt_hessian, ct::newton_cbrt_derivatives))
    .analytic(|x| vec![x[0].powf(-2.0 / 3.0) / 3.0])
    .run(POINTS, range(1, 0.5, 20.0));
    // The fixed point x = a cos x: dx/da = cos x / (1 + a sin x) at the fixed point.
    let fx = |x: &[f64]| {
        let v = ct::fixed_point(x[0]);
        vec![v.cos() / (1.0 + x[0] * v.sin())]
    };
    Probe::new("fixed_point", |x| ct::fixed_point(x[0]))
        .grad(|x| {
            let (v, d) = ct::fixed_point_grad(x[0]);
            (v, vec![d])
        })
        .jvp(|x, t| ct::fixed_point_jvp(x[0], t[0]))
        .analytic(fx)
        .run(POINTS, range(1, 0.1, 0.9));
    one(
        "series_until_small",
        ct::series_until_small,
        ct::series_until_small_grad,
        ct::series_until_small_jvp,
        ct::series_until_small_grad_into,
    )
    .hessian(hess1(
        ct::series_until_small_hessian,
        ct::series_until_small_derivatives,
    ))
    .analytic(|x| {
        // The trip count n is fixed near x: s = sum_{k<n} r^k.
        let r = x[0];
        let mut n = 1;
        while r.powi(n).abs() >= 1e-3 {
            n += 1;
        }
        vec![(1..n).map(|k| k as f64 * r.powi(k - 1)).sum()]
    })
    .run(POINTS, |r: &mut Lcg| loop {
        // Away from the values of r where a term crosses 1e-3.
        let x = r.uniform(-0.8, 0.8);
        let near = (1..40).any(|k| (x.abs().powi(k) / 1e-3 - 1.0).abs() < 0.02);
        if !near && x.abs() > 0.05 {
            break vec![x];
        }
    });
    Probe::new("first_past", |x| ct::first_past(&x[..4], x[4]))
        .grad(|x| {
            let (v, (g, gl)) = ct::first_past_grad(&x[..4], x[4]);
            (v, [g, vec![gl]].concat())
        })
        .jvp(|x, t| ct::first_past_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
        .hessian(|x| {
            let (v, (g, gl), h) = ct::first_past_hessian(&x[..4], x[4]);
            (v, [g, vec![gl]].concat(), h)
        })
        .run(POINTS, |r: &mut Lcg| loop {
            let x = r.vec(4, -1.5, 1.5);
            let limit = r.uniform(0.5, 4.0);
            // Away from a partial sum equal to the limit.
            let mut s = 0.0;
            let ok = x.iter().all(|v| {
                s += v * v;
                (s - limit).abs() > 0.02
            });
            if ok {
                break [x, vec![limit]].concat();
            }
        });
    slice2!(
        ct::first_close_pair,
        first_close_pair_grad,
        first_close_pair_jvp,
        first_close_pair_grad_into,
        first_close_pair_hessian
    )
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(4, -2.0, 2.0);
        let ok = (0..4).all(|i| (0..i).all(|j| ((x[i] - x[j]).abs() - 0.3).abs() > 0.01));
        if ok {
            break x;
        }
    });
    // The spline's `match` on `i64` ranges: each segment's cubic.
    one(
        "spline",
        ct::spline,
        ct::spline_grad,
        ct::spline_jvp,
        ct::spline_grad_into,
    )
    .hessian(hess1(ct::spline_hessian, ct::spline_derivatives))
    .analytic(|x| {
        let seg = x[0].floor();
        let t = x[0] - seg;
        let b = match seg as i64 {
            i64::MIN..=-1 => -0.5,
            0 => 2.0,
            1 | 2 => 0.25,
            _ => 1.0,
        };
        vec![b + 6.0 * t - 6.0 * t * t]
    })
    .run(POINTS, away_from(1, -2.0, 4.0, 1.0, 0.0));
    for kind in 0..4 {
        Probe::new("activation", move |x| ct::activation(x[0], kind))
            .grad(move |x| {
                let (v, d) = ct::activation_grad(x[0], kind);
                (v, vec![d])
            })
            .jvp(move |x, t| ct::activation_jvp(x[0], kind, t[0]))
            .hessian(move |x| {
                let (v, d, h) = ct::activation_hessian(x[0], kind);
                (v, vec![d], h)
            })
            .run(POINTS, range(1, -3.0, 3.0));
    }
    slice2!(
        ct::shadowing,
        shadowing_grad,
        shadowing_jvp,
        shadowing_grad_into,
        shadowing_hessian
    )
    .run(POINTS, range(3, -2.0, 2.0));
    // |z^5|^2 = (re^2 + im^2)^5.
    two(
        "complex_power",
        ct::complex_power,
        ct::complex_power_grad,
        ct::complex_power_jvp,
        ct::complex_power_grad_into,
    )
    .hessian(hess2(ct::complex_power_hessian))
    .analytic(|x| {
        let r2 = x[0] * x[0] + x[1] * x[1];
        vec![10.0 * x[0] * r2.powi(4), 10.0 * x[1] * r2.powi(4)]
    })
    .run(POINTS, range(2, -1.2, 1.2));
    two(
        "polar_distance",
        ct::polar_distance,
        ct::polar_distance_grad,
        ct::polar_distance_jvp,
        ct::polar_distance_grad_into,
    )
    .hessian(hess2(ct::polar_distance_hessian))
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(0.3, 2.0), r.uniform(-3.0, 3.0)]
    });
    for n in [0usize, 1, 3] {
        Probe::new("rotate_n", move |x| ct::rotate_n([x[0], x[1]], x[2], n))
            .grad(move |x| {
                let (v, (g, ga)) = ct::rotate_n_grad([x[0], x[1]], x[2], n);
                (v, vec![g[0], g[1], ga])
            })
            .jvp(move |x, t| ct::rotate_n_jvp([x[0], x[1]], x[2], n, ([t[0], t[1]], t[2])))
            .hessian(move |x| {
                let (v, (g, ga), h) = ct::rotate_n_hessian([x[0], x[1]], x[2], n);
                (v, vec![g[0], g[1], ga], h)
            })
            .analytic(move |x| {
                // q = R(n a) p: q0 = cos(na) p0 - sin(na) p1, q1 = sin(na) p0 + cos(na) p1.
                let (s, c) = ((n as f64 * x[2]).sin(), (n as f64 * x[2]).cos());
                let q1 = s * x[0] + c * x[1];
                let nf = n as f64;
                let dq0 = nf * (-s * x[0] - c * x[1]);
                let dq1 = nf * (c * x[0] - s * x[1]);
                vec![c + 0.2 * q1 * s, -s + 0.2 * q1 * c, dq0 + 0.2 * q1 * dq1]
            })
            .run(POINTS, range(3, -2.0, 2.0));
    }
    let a4 = |x: &[f64]| -> [f64; 4] { [x[0], x[1], x[2], x[3]] };
    check_vector(
        "quat_mul",
        POINTS,
        range(8, -1.0, 1.0),
        &|x| ct::quat_mul(a4(x), a4(&x[4..])).to_vec(),
        &|x, c| {
            let (y, (ga, gb)) = ct::quat_mul_vjp(a4(x), a4(&x[4..]), a4(c));
            (y.to_vec(), [ga, gb].concat())
        },
        &|x, t| {
            let (y, d) = ct::quat_mul_jvp(a4(x), a4(&x[4..]), (a4(t), a4(&t[4..])));
            (y.to_vec(), d.to_vec())
        },
        Some(&|x| ct::quat_mul_jacobian(a4(x), a4(&x[4..]))),
    );
    slice2!(
        ct::locals_mix,
        locals_mix_grad,
        locals_mix_jvp,
        locals_mix_grad_into,
        locals_mix_hessian
    )
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(5, -2.0, 2.0);
        let t: f64 = ct::locals_mix(&x);
        let _ = t;
        // Away from total = 0, where the `if` switches.
        let (mut a, mut v) = ([0.0; 2], vec![0.0; 5]);
        for i in 0..5 {
            v[i] = x[i] * (i as f64 + 1.0);
            a[i % 2] += v[i];
        }
        let total: f64 = (0..5).map(|i| v[i] * a[(i + 1) % 2]).sum();
        if total.abs() > 0.05 {
            break x;
        }
    });
    slice2!(
        ct::while_budget,
        while_budget_grad,
        while_budget_jvp,
        while_budget_grad_into,
        while_budget_hessian
    )
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(5, -1.5, 1.5);
        let mut used = 0.0;
        let ok = x.iter().all(|v| {
            used += v.abs();
            (used - 2.0f64).abs() > 0.02 && v.abs() > 0.01
        });
        if ok {
            break x;
        }
    });
    slice2!(
        ct::skip_negative,
        skip_negative_grad,
        skip_negative_jvp,
        skip_negative_grad_into,
        skip_negative_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for (i, &v) in x.iter().enumerate() {
            if v < 0.0 {
                continue;
            }
            if v > 1.8 {
                break;
            }
            g[i] = 0.5 / v.sqrt() * (i as f64 + 1.0);
        }
        g
    })
    .run(POINTS, |r: &mut Lcg| {
        r.vec(6, -1.0, 2.0)
            .into_iter()
            .map(|v| {
                if v.abs() < 0.05 || (v - 1.8).abs() < 0.01 {
                    0.5
                } else {
                    v
                }
            })
            .collect()
    });
    slice2!(
        ct::histogram_energy,
        histogram_energy_grad,
        histogram_energy_jvp,
        histogram_energy_grad_into,
        histogram_energy_hessian
    )
    .run(POINTS, away_from(5, -1.99, 1.99, 1.0, 0.0));
}

#[test]
fn calls_across_modules() {
    use kernels as ke;
    use models as mo;
    let centres = [0.0, 0.5, 1.0, -0.5, -1.0, 0.2];
    let xq = [0.3, -0.2];
    let (cr, xr) = (&centres, &xq);
    Probe::new("kernel_predict", move |p| {
        mo::kernel_predict(&p[..3], p[3], cr, xr)
    })
    .grad(move |p| {
        let (v, (ga, gl)) = mo::kernel_predict_grad(&p[..3], p[3], cr, xr);
        (v, [ga, vec![gl]].concat())
    })
    .jvp(move |p, t| mo::kernel_predict_jvp(&p[..3], p[3], cr, xr, (t[..3].to_vec(), t[3])))
    .grad_into(move |p| {
        let (mut ga, mut gl) = (vec![GARBAGE; 3], GARBAGE);
        let v = mo::kernel_predict_grad_into(&p[..3], p[3], cr, xr, (&mut ga, &mut gl));
        (v, [ga, vec![gl]].concat())
    })
    .hessian(move |p| {
        let (v, (ga, gl), h) = mo::kernel_predict_hessian(&p[..3], p[3], cr, xr);
        (v, [ga, vec![gl]].concat(), h)
    })
    .analytic(move |p| {
        let (alpha, ell) = (&p[..3], p[3]);
        let mut y = 0.0;
        let mut dy = [0.0; 4];
        for k in 0..3 {
            let d2: f64 = (0..2).map(|j| (cr[2 * k + j] - xr[j]).powi(2)).sum();
            let kv = (-0.5 * d2 / (ell * ell)).exp();
            y += alpha[k] * kv;
            dy[k] = kv;
            dy[3] += alpha[k] * kv * d2 / ell.powi(3);
        }
        let outer = 2.0 * y + 1.0 - (y / 2.0).tanh().powi(2);
        dy.iter().map(|d| outer * d).collect()
    })
    .run(POINTS, |r: &mut Lcg| {
        [r.vec(3, -1.0, 1.0), vec![r.uniform(0.4, 2.0)]].concat()
    });
    // The helper itself, every argument active.
    let rbf = |p: &[f64]| ke::rbf(&p[..2], &p[2..4], p[4]);
    Probe::new("rbf", rbf)
        .grad(|p| {
            let (v, (a, b, l)) = ke::rbf_grad(&p[..2], &p[2..4], p[4]);
            (v, [a, b, vec![l]].concat())
        })
        .hessian(|p| {
            let (v, (a, b, l), h) = ke::rbf_hessian(&p[..2], &p[2..4], p[4]);
            (v, [a, b, vec![l]].concat(), h)
        })
        .run(POINTS, |r: &mut Lcg| {
            [r.vec(4, -1.0, 1.0), vec![r.uniform(0.4, 2.0)]].concat()
        });
    // The generic helper at f64 and on `Dual`s through its own items.
    let (v, (gx, gl)) = ke::softclip_grad(0.7f64, 2.0);
    let th = (0.35f64).tanh();
    assert_near(v, 2.0 * th, 1e-15, 0.0, "softclip");
    assert_near(gx, 1.0 - th * th, 1e-15, 0.0, "softclip d/dx");
    assert_near(
        gl,
        th - 0.35 * (1.0 - th * th),
        1e-15,
        0.0,
        "softclip d/dlimit",
    );
    // Three levels of calls with permuted arguments, at order 3.
    let outer_value = |x: f64| {
        let inner = |a: f64, b: f64| (a - b).powi(2) * b.exp();
        0.5 * (inner(x.sin(), x) + inner(x, x))
    };
    one(
        "outer",
        mo::outer,
        mo::outer_grad,
        mo::outer_jvp,
        mo::outer_grad_into,
    )
    .hessian(|x| {
        let (v, g, h) = mo::outer_hessian(x[0]);
        (v, vec![g], h)
    })
    .run(POINTS, range(1, -2.0, 2.0));
    for x in [-1.0, 0.4, 1.7] {
        assert_near(mo::outer(x), outer_value(x), 1e-14, 0.0, "outer");
    }
    check_third("outer", mo::outer_derivatives, POINTS, -2.0, 2.0);
    two(
        "middle",
        mo::middle,
        mo::middle_grad,
        mo::middle_jvp,
        mo::middle_grad_into,
    )
    .hessian(hess2(mo::middle_hessian))
    .run(POINTS, range(2, -2.0, 2.0));
    for n in [0u32, 1, 2, 5, 8] {
        Probe::new("power_rec", move |x| mo::power_rec(x[0], n))
            .grad(move |x| {
                let (v, d) = mo::power_rec_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| mo::power_rec_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = mo::power_rec_hessian(x[0], n);
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
    two(
        "with_nested_fn",
        mo::with_nested_fn,
        mo::with_nested_fn_grad,
        mo::with_nested_fn_jvp,
        mo::with_nested_fn_grad_into,
    )
    .hessian(hess2(mo::with_nested_fn_hessian))
    .run(POINTS, range(2, -2.0, 2.0));
}

#[test]
fn struct_methods() {
    let net = |p: &[f64]| TinyNet {
        w1: p[0..3].to_vec(),
        b1: p[3..6].to_vec(),
        w2: p[6..9].to_vec(),
        b2: p[9],
        hidden: 3,
    };
    let xs = [-1.0, -0.3, 0.4, 1.2];
    let ys = [0.5, -0.2, 0.1, 0.9];
    Probe::new("TinyNet::predict", move |p| net(p).predict(0.7))
        .grad(move |p| {
            let (v, g) = net(p).predict_grad(0.7);
            assert_eq!(g.hidden, 3, "a #[no_grad] field is copied");
            (v, g.to_flat())
        })
        .jvp(move |p, t| net(p).predict_jvp(0.7, net(t)))
        .hessian(move |p| {
            let (v, g, h) = net(p).predict_hessian(0.7);
            (v, g.to_flat(), h)
        })
        .analytic(move |p| {
            let n = net(p);
            let mut g = vec![0.0; 10];
            for h in 0..3 {
                let a = (n.w1[h] * 0.7 + n.b1[h]).tanh();
                let da = 1.0 - a * a;
                g[h] = n.w2[h] * da * 0.7;
                g[3 + h] = n.w2[h] * da;
                g[6 + h] = a;
            }
            g[9] = 1.0;
            g
        })
        .run(POINTS, range(10, -1.0, 1.0));
    Probe::new("TinyNet::mse", move |p| net(p).mse(&xs, &ys))
        .grad(move |p| {
            let (v, g) = net(p).mse_grad(&xs, &ys);
            (v, g.to_flat())
        })
        .jvp(move |p, t| net(p).mse_jvp(&xs, &ys, net(t)))
        .hessian(move |p| {
            let (v, g, h) = net(p).mse_hessian(&xs, &ys);
            (v, g.to_flat(), h)
        })
        .run(POINTS, range(10, -1.0, 1.0));
    Probe::new("regularised", move |p| regularised(&net(p), &xs, &ys, 0.1))
        .grad(move |p| {
            let (v, g) = regularised_grad(&net(p), &xs, &ys, 0.1);
            (v, g.to_flat())
        })
        .hessian(move |p| {
            let (v, g, h) = regularised_hessian(&net(p), &xs, &ys, 0.1);
            (v, g.to_flat(), h)
        })
        .run(POINTS, range(10, -1.0, 1.0));
    let fixed = net(&[0.5, -1.0, 0.8, 0.1, 0.2, -0.3, 1.1, 0.4, -0.7, 0.05]);
    let at = fixed.clone();
    Probe::new("TinyNet::slope_energy", move |x| at.slope_energy(x[0]))
        .grad(|x| {
            let (v, d) = fixed.slope_energy_grad(x[0]);
            (v, vec![d])
        })
        .jvp(|x, t| fixed.slope_energy_jvp(x[0], t[0]))
        .grad_into(|x| {
            let mut d = GARBAGE;
            let v = fixed.slope_energy_grad_into(x[0], &mut d);
            (v, vec![d])
        })
        .run(POINTS, range(1, -2.0, 2.0));
}

#[test]
fn custom_gradients_first_and_second_order() {
    use customs as cu;
    let sigmoid = |t: f64| 1.0 / (1.0 + (-t).exp());
    // The custom gradient is the true derivative, so central differences and the Hessian agree.
    one(
        "log1pexp",
        cu::log1pexp,
        cu::log1pexp_grad,
        cu::log1pexp_jvp,
        |x, g| {
            let (v, d) = cu::log1pexp_grad(x);
            *g = d;
            v
        },
    )
    .analytic(move |x| vec![sigmoid(x[0])])
    .run(POINTS, range(1, -6.0, 6.0));
    assert_eq!(cu::log1pexp_grad(800.0), (800.0, 1.0));
    assert_eq!(cu::log1pexp_grad(-800.0), (0.0, 0.0));
    let xs = [0.5, -1.0, 1.5, 0.2, -0.4, -0.9];
    let ys = [1.0, -1.0, 1.0];
    let (xr, yr) = (&xs, &ys);
    Probe::new("softplus_loss", move |p| {
        cu::softplus_loss(&p[..2], p[2], xr, yr)
    })
    .grad(move |p| {
        let (v, (gw, gb)) = cu::softplus_loss_grad(&p[..2], p[2], xr, yr);
        (v, [gw, vec![gb]].concat())
    })
    .jvp(move |p, t| cu::softplus_loss_jvp(&p[..2], p[2], xr, yr, (t[..2].to_vec(), t[2])))
    .grad_into(move |p| {
        let (mut gw, mut gb) = (vec![GARBAGE; 2], GARBAGE);
        let v = cu::softplus_loss_grad_into(&p[..2], p[2], xr, yr, (&mut gw, &mut gb));
        (v, [gw, vec![gb]].concat())
    })
    .hessian(move |p| {
        let (v, (gw, gb), h) = cu::softplus_loss_hessian(&p[..2], p[2], xr, yr);
        // The Hessian by hand: sum s(1 - s) y^2 x x^T over examples (y^2 = 1).
        for a in 0..3 {
            for b in 0..3 {
                let e: f64 = (0..3)
                    .map(|i| {
                        let xi = [xr[2 * i], xr[2 * i + 1], 1.0];
                        let t = p[2] + p[0] * xi[0] + p[1] * xi[1];
                        let s = sigmoid(-yr[i] * t);
                        s * (1.0 - s) * xi[a] * xi[b]
                    })
                    .sum();
                assert_near(h[a][b], e, 1e-12, 1.0, "softplus_loss Hessian by hand");
            }
        }
        (v, [gw, vec![gb]].concat(), h)
    })
    .run(POINTS, range(3, -3.0, 3.0));
    // Straight-through: the rule's gradient (2 q x, 2 q round(w)) and its Jacobian, not the true ones.
    two(
        "quantised_fit",
        cu::quantised_fit,
        cu::quantised_fit_grad,
        cu::quantised_fit_jvp,
        cu::quantised_fit_grad_into,
    )
    .hessian(|x| {
        let (v, g, h) = cu::quantised_fit_hessian(x[0], x[1]);
        let (w, z) = (x[0], x[1]);
        let rw = w.round();
        // The Jacobian of `_grad` = (2 rw z^2, 2 rw^2 z), where `rw` is the value of `st_round(w)`,
        // differentiated through its forward code (`round`, a zero derivative) as API.md says: row
        // `i` is the derivative of gradient component `i`, so it is not symmetric.
        let _ = w;
        let e = [[0.0, 4.0 * rw * z], [0.0, 2.0 * rw * rw]];
        for a in 0..2 {
            for b in 0..2 {
                assert_near(
                    h[a][b],
                    e[a][b],
                    1e-13,
                    1.0,
                    &format!("quantised_fit H[{a}][{b}]"),
                );
            }
        }
        (v, vec![g.0, g.1], h)
    })
    .analytic(|x| {
        let q = x[0].round() * x[1];
        vec![2.0 * q * x[1], 2.0 * q * x[0].round()]
    })
    .no_fd()
    .no_hessian_fd()
    .run(POINTS, away_from(2, -2.5, 2.5, 1.0, 0.5));
    // The clipped identity: inside, the true derivative at both orders; outside, a zero cotangent.
    slice2!(
        cu::clipped_energy,
        clipped_energy_grad,
        clipped_energy_jvp,
        clipped_energy_grad_into,
        clipped_energy_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| {
                let u = 0.7 * v;
                if u.abs() < 1.0 {
                    3.0 * 0.49 * v * v
                } else {
                    // c = +-1 is constant and its cotangent is cut: d/dv (c^2 v) = 1.
                    1.0
                }
            })
            .collect()
    })
    .run(POINTS, |r: &mut Lcg| {
        // Inside the clip only for the central differences to agree with the rule.
        r.vec(4, -1.4, 1.4)
    });
    // The two-input custom gradient in a loop.
    slice2!(
        cu::path_length,
        path_length_grad,
        path_length_jvp,
        path_length_grad_into,
        path_length_hessian
    )
    .run(POINTS, range(8, -2.0, 2.0));
    // Third order through a custom gradient's closure.
    check_third(
        "log1pexp_cubed",
        cu::log1pexp_cubed_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    let d = cu::log1pexp_cubed_derivatives(0.8);
    let (u, s) = (0.6f64, sigmoid(0.6));
    let v = u.exp().ln_1p();
    assert_near(d[1], 3.0 * v * v * s * 2.0, 1e-13, 0.0, "log1pexp_cubed'");
    assert_near(
        d[2],
        6.0 * v * s * s * 4.0 + 3.0 * v * v * s * (1.0 - s) * 4.0,
        1e-12,
        0.0,
        "log1pexp_cubed''",
    );
}

#[test]
fn more_rust_forms() {
    use rust_forms as rf;
    slice2!(
        rf::collect_then_sum,
        collect_then_sum_grad,
        collect_then_sum_jvp,
        collect_then_sum_grad_into,
        collect_then_sum_hessian
    )
    .analytic(|x| {
        let s: f64 = x.iter().map(|v| v * v).sum();
        let mut g: Flat = x.iter().map(|v| 2.0 * v * x[0] * x[0]).collect();
        g[0] += 2.0 * x[0] * s;
        g
    })
    .run(POINTS, range(4, -2.0, 2.0));
    Probe::new("rev_iter", |x| rf::rev_iter(&x[..4], x[4]))
        .grad(|x| {
            let (v, (gc, gx)) = rf::rev_iter_grad(&x[..4], x[4]);
            (v, [gc, vec![gx]].concat())
        })
        .hessian(|x| {
            let (v, (gc, gx), h) = rf::rev_iter_hessian(&x[..4], x[4]);
            (v, [gc, vec![gx]].concat(), h)
        })
        .analytic(|x| {
            // Lowest coefficient first: c0 + c1 x + c2 x^2 + c3 x^3.
            let z = x[4];
            vec![
                1.0,
                z,
                z * z,
                z.powi(3),
                x[1] + 2.0 * x[2] * z + 3.0 * x[3] * z * z,
            ]
        })
        .run(POINTS, range(5, -2.0, 2.0));
    Probe::new("nearest", |x| rf::nearest(&x[..4], x[4]))
        .grad(|x| {
            let (v, (g, gq)) = rf::nearest_grad(&x[..4], x[4]);
            (v, [g, vec![gq]].concat())
        })
        .jvp(|x, t| rf::nearest_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
        .hessian(|x| {
            let (v, (g, gq), h) = rf::nearest_hessian(&x[..4], x[4]);
            (v, [g, vec![gq]].concat(), h)
        })
        .run(POINTS, |r: &mut Lcg| loop {
            let x = r.vec(5, -2.0, 2.0);
            let d: Flat = x[..4].iter().map(|v| (v - x[4]).powi(2)).collect();
            if (0..4).all(|i| (0..i).all(|j| (d[i] - d[j]).abs() > 0.01)) {
                break x;
            }
        });
    two_slices!(
        "chains_in_one_expr",
        3,
        rf::chains_in_one_expr,
        rf::chains_in_one_expr_grad,
        rf::chains_in_one_expr_jvp,
        rf::chains_in_one_expr_grad_into
    )
    .hessian(|x| {
        let (v, (a, b), h) = rf::chains_in_one_expr_hessian(&x[..3], &x[3..]);
        (v, [a, b].concat(), h)
    })
    .run(POINTS, range(6, -2.0, 2.0));
    slice2!(
        rf::closure_calls_fn,
        closure_calls_fn_grad,
        closure_calls_fn_jvp,
        closure_calls_fn_grad_into,
        closure_calls_fn_hessian
    )
    .analytic(|x| x.iter().map(|v| 2.0 * v + 1.0).collect())
    .run(POINTS, range(4, -2.0, 2.0));
    slice2!(
        rf::uses_vec_call,
        uses_vec_call_grad,
        uses_vec_call_jvp,
        uses_vec_call_grad_into,
        uses_vec_call_hessian
    )
    .run(POINTS, range(4, -1.5, 1.5));
    check_vector(
        "running",
        POINTS,
        range(4, -2.0, 2.0),
        &|x| rf::running(x),
        &|x, c| rf::running_vjp(x, c.to_vec()),
        &|x, t| rf::running_jvp(x, t.to_vec()),
        Some(&|x| rf::running_jacobian(x)),
    );
    // 6 x^3 and its derivatives.
    for x in [-1.2, 0.4, 2.0] {
        let d = rf::const_len_array_derivatives(x);
        assert_vec_near(
            &d,
            &[6.0 * x.powi(3), 18.0 * x * x, 36.0 * x, 36.0],
            1e-13,
            "const_len_array",
        );
        let d = rf::powi_negative_derivatives(x);
        let e = [
            x.powi(-2) + x.powi(3),
            -2.0 * x.powi(-3) + 3.0 * x * x,
            6.0 * x.powi(-4) + 6.0 * x,
            -24.0 * x.powi(-5) + 6.0,
        ];
        assert_vec_near(&d, &e, 1e-12, "powi_negative");
    }
    check_third(
        "const_len_array",
        rf::const_len_array_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    check_third(
        "powi_negative",
        rf::powi_negative_derivatives,
        POINTS,
        0.5,
        2.0,
    );
    for n in [0usize, 1, 4] {
        Probe::new("shadow_param_then_loop", move |x| {
            rf::shadow_param_then_loop(x[0], n)
        })
        .grad(move |x| {
            let (v, d) = rf::shadow_param_then_loop_grad(x[0], n);
            (v, vec![d])
        })
        .hessian(move |x| {
            let (v, d, h) = rf::shadow_param_then_loop_hessian(x[0], n);
            (v, vec![d], h)
        })
        .analytic(move |x| {
            vec![(1..n)
                .map(|k| k as f64 * 0.5f64.powi(k as i32) * x[0].powi(k as i32 - 1))
                .sum()]
        })
        .run(POINTS, range(1, -2.0, 2.0));
    }
    let mut rng = Lcg::new(99);
    for _ in 0..POINTS {
        let x = rng.uniform(-3.0, 3.0);
        let mut y = GARBAGE;
        let gx = rf::scalar_out_vjp(x, &mut y, 1.5);
        assert_near(y, x * x.sin(), 1e-15, 0.0, "scalar_out's output");
        assert_near(
            gx,
            1.5 * (x.sin() + x * x.cos()),
            1e-13,
            0.0,
            "scalar_out_vjp",
        );
        let mut dy = GARBAGE;
        rf::scalar_out_jvp(x, &mut y, 0.5, &mut dy);
        assert_near(
            dy,
            0.5 * (x.sin() + x * x.cos()),
            1e-13,
            0.0,
            "scalar_out_jvp",
        );
    }
    one(
        "use_in_body",
        rf::use_in_body,
        rf::use_in_body_grad,
        rf::use_in_body_jvp,
        rf::use_in_body_grad_into,
    )
    .hessian(hess1(rf::use_in_body_hessian, rf::use_in_body_derivatives))
    .analytic(|x| vec![std::f64::consts::PI * (std::f64::consts::PI * x[0]).cos()])
    .run(POINTS, range(1, -2.0, 2.0));
    check_vector(
        "early_return_copy",
        POINTS,
        away_from(3, -2.0, 2.0, 100.0, 0.0),
        &|x| rf::early_return_copy(x),
        &|x, c| rf::early_return_copy_vjp(x, c.to_vec()),
        &|x, t| rf::early_return_copy_jvp(x, t.to_vec()),
        Some(&|x| rf::early_return_copy_jacobian(x)),
    );
    for codes in [
        [0u8, 1, 0, 2, 0],
        [1, 1, 3, 0, 0],
        [0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
    ] {
        Probe::new("interpreter", move |x| rf::interpreter(x, &codes))
            .grad(move |x| rf::interpreter_grad(x, &codes))
            .jvp(move |x, t| rf::interpreter_jvp(x, &codes, t.to_vec()))
            .hessian(move |x| rf::interpreter_hessian(x, &codes))
            .run(POINTS, range(5, -2.0, 2.0));
    }
    let (v, g) = rf::interpreter_grad(&[1.0, 2.0, 3.0, 4.0, 5.0], &[0, 1, 0, 2, 0]);
    assert_eq!((v, g), (20.0, vec![8.0, 4.0, 4.0, 5.0, 0.0]));
    slice2!(
        rf::pair_closure,
        pair_closure_grad,
        pair_closure_jvp,
        pair_closure_grad_into,
        pair_closure_hessian
    )
    .run(POINTS, range(4, -2.0, 2.0));
    one(
        "sin_cos_product",
        rf::sin_cos_product,
        rf::sin_cos_product_grad,
        rf::sin_cos_product_jvp,
        rf::sin_cos_product_grad_into,
    )
    .analytic(|x| {
        let z = x[0];
        vec![0.5 * (2.0 * z * z).sin() + 2.0 * z * z * (2.0 * z * z).cos()]
    })
    .run(POINTS, range(1, -2.0, 2.0));
    check_third(
        "sin_cos_product",
        rf::sin_cos_product_derivatives,
        POINTS,
        -2.0,
        2.0,
    );
    one(
        "degrees",
        rf::degrees,
        rf::degrees_grad,
        rf::degrees_jvp,
        rf::degrees_grad_into,
    )
    .analytic(|x| {
        let (d, r) = (x[0].to_degrees(), x[0].to_radians());
        vec![r.sin() * 180.0 / std::f64::consts::PI + d * r.cos() * std::f64::consts::PI / 180.0]
    })
    .run(POINTS, range(1, -3.0, 3.0));
    check_third("degrees", rf::degrees_derivatives, POINTS, -3.0, 3.0);
}

#[test]
fn aliasing_and_scoping() {
    use aliasing as al;
    slice2!(
        al::in_place_meeting,
        in_place_meeting_grad,
        in_place_meeting_jvp,
        in_place_meeting_grad_into,
        in_place_meeting_hessian
    )
    .run(POINTS, range(5, -1.5, 1.5));
    let a4 = |x: &[f64]| -> [f64; 4] { [x[0], x[1], x[2], x[3]] };
    Probe::new("shift_forward", move |x| al::shift_forward(a4(x)))
        .grad(move |x| {
            let (v, g) = al::shift_forward_grad(a4(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| al::shift_forward_jvp(a4(x), a4(t)))
        .hessian(move |x| {
            let (v, g, h) = al::shift_forward_hessian(a4(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, range(4, -2.0, 2.0));
    let (to, from) = ([0usize, 2, 2, 1, 3], [2usize, 2, 0, 1, 3]);
    Probe::new("scatter_add", move |x| al::scatter_add(x, &to, &from))
        .grad(move |x| al::scatter_add_grad(x, &to, &from))
        .jvp(move |x, t| al::scatter_add_jvp(x, &to, &from, t.to_vec()))
        .hessian(move |x| al::scatter_add_hessian(x, &to, &from))
        .run(POINTS, range(4, -1.5, 1.5));
    slice2!(
        al::same_slice_twice,
        same_slice_twice_grad,
        same_slice_twice_jvp,
        same_slice_twice_grad_into,
        same_slice_twice_hessian
    )
    .run(POINTS, range(3, -1.5, 1.5));
    // s: x, t = 6x; s = x^2 + (6x) x + (6x + 1) x; result s + t.
    one(
        "shadow_in_loop",
        al::shadow_in_loop,
        al::shadow_in_loop_grad,
        al::shadow_in_loop_jvp,
        al::shadow_in_loop_grad_into,
    )
    .hessian(hess1(
        al::shadow_in_loop_hessian,
        al::shadow_in_loop_derivatives,
    ))
    .analytic(|x| vec![2.0 * x[0] + 24.0 * x[0] + 1.0 + 6.0])
    .run(POINTS, range(1, -2.0, 2.0));
    assert_eq!(al::shadow_in_loop(1.0), 1.0 + 6.0 + 7.0 + 6.0);
    two(
        "blocks",
        al::blocks,
        al::blocks_grad,
        al::blocks_jvp,
        al::blocks_grad_into,
    )
    .hessian(hess2(al::blocks_hessian))
    .run(POINTS, |r: &mut Lcg| loop {
        let (x, y) = (r.uniform(-2.0, 2.0), r.uniform(-2.0, 2.0));
        let a = x * y + 1.0;
        let b = if a > 1.0 { a * x } else { y };
        if (a - 1.0).abs() > 0.02 && b.abs() > 0.02 {
            break vec![x, y];
        }
    });
    two(
        "tuple_swaps",
        al::tuple_swaps,
        al::tuple_swaps_grad,
        al::tuple_swaps_jvp,
        al::tuple_swaps_grad_into,
    )
    .hessian(hess2(al::tuple_swaps_hessian))
    .run(POINTS, range(2, -1.5, 1.5));
    let a2 = |x: &[f64]| -> [f64; 2] { [x[0], x[1]] };
    Probe::new("loop_match_break", move |x| al::loop_match_break(a2(x)))
        .grad(move |x| {
            let (v, g) = al::loop_match_break_grad(a2(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| al::loop_match_break_jvp(a2(x), a2(t)))
        .hessian(move |x| {
            let (v, g, h) = al::loop_match_break_hessian(a2(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, range(2, -1.2, 1.2));
    Probe::new("twice_into", |x| al::twice_into(&x[..3], x[3]))
        .grad(|x| {
            let (v, (g, ga)) = al::twice_into_grad(&x[..3], x[3]);
            (v, [g, vec![ga]].concat())
        })
        .jvp(|x, t| al::twice_into_jvp(&x[..3], x[3], (t[..3].to_vec(), t[3])))
        .run(POINTS, range(4, -1.5, 1.5));
}

#[test]
fn stencils_and_sweeps() {
    use stencils as st;
    for sweeps in [1usize, 3] {
        Probe::new("gauss_seidel", move |f| st::gauss_seidel(f, sweeps))
            .grad(move |f| st::gauss_seidel_grad(f, sweeps))
            .jvp(move |f, t| st::gauss_seidel_jvp(f, sweeps, t.to_vec()))
            .grad_into(move |f| {
                let mut g = vec![GARBAGE; f.len()];
                let v = st::gauss_seidel_grad_into(f, sweeps, &mut g);
                (v, g)
            })
            .hessian(move |f| st::gauss_seidel_hessian(f, sweeps))
            .run(POINTS, range(6, -1.5, 1.5));
    }
    slice2!(
        st::laplacian_energy,
        laplacian_energy_grad,
        laplacian_energy_jvp,
        laplacian_energy_grad_into,
        laplacian_energy_hessian
    )
    .run(POINTS, range(6, -1.5, 1.5));
    for n in [4usize, 5] {
        slice2!(
            st::mirrored,
            mirrored_grad,
            mirrored_jvp,
            mirrored_grad_into,
            mirrored_hessian
        )
        .run(POINTS, range(n, -1.5, 1.5));
    }
    Probe::new("heat", |x| st::heat(&x[..5], x[5]))
        .grad(|x| {
            let (v, (g, gk)) = st::heat_grad(&x[..5], x[5]);
            (v, [g, vec![gk]].concat())
        })
        .jvp(|x, t| st::heat_jvp(&x[..5], x[5], (t[..5].to_vec(), t[5])))
        .hessian(|x| {
            let (v, (g, gk), h) = st::heat_hessian(&x[..5], x[5]);
            (v, [g, vec![gk]].concat(), h)
        })
        .run(POINTS, |r: &mut Lcg| {
            [r.vec(5, -1.0, 1.0), vec![r.uniform(0.05, 0.3)]].concat()
        });
}

#[test]
fn registered_and_slice_custom_gradients() {
    use registered as rg;
    let mut rng = Lcg::new(23);
    let x = rng.vec(10, -1.5, 1.5);
    let y = [true, false, true, true, false];
    let (xr, yr) = (&x, &y);
    let phi = |t: f64| 0.5 * (1.0 + libm::erf(t / std::f64::consts::SQRT_2));
    let pdf = |t: f64| (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
    Probe::new("probit_loglik", move |w| rg::probit_loglik(w, xr, yr))
        .grad(move |w| rg::probit_loglik_grad(w, xr, yr))
        .jvp(move |w, t| rg::probit_loglik_jvp(w, xr, yr, t.to_vec()))
        .grad_into(move |w| {
            let mut g = vec![GARBAGE; 2];
            let v = rg::probit_loglik_grad_into(w, xr, yr, &mut g);
            (v, g)
        })
        .hessian(move |w| rg::probit_loglik_hessian(w, xr, yr))
        .analytic(move |w| {
            let mut g = vec![0.0; 2];
            for i in 0..5 {
                let t = dot(w, &xr[2 * i..2 * i + 2]);
                let sg = if yr[i] { 1.0 } else { -1.0 };
                let r = sg * pdf(sg * t) / phi(sg * t);
                g[0] += r * xr[2 * i];
                g[1] += r * xr[2 * i + 1];
            }
            g
        })
        .run(POINTS, range(2, -1.5, 1.5));
    for label in 0..3 {
        Probe::new("xent_custom", move |z| rg::xent_custom(z, label))
            .grad(move |z| rg::xent_custom_grad(z, label))
            .jvp(move |z, t| rg::xent_custom_jvp(z, label, t.to_vec()))
            .hessian(move |z| rg::xent_custom_hessian(z, label))
            .analytic(move |z| {
                let mut p = softmax(z);
                p[label] -= 1.0;
                p
            })
            .run(POINTS, range(3, -3.0, 3.0));
    }
    // The custom gradient's own items.
    let z = [0.5, -1.0, 2.0];
    let (v, g) = rg::lse_grad(&z);
    assert_near(
        v,
        z.iter().map(|q| q.exp()).sum::<f64>().ln(),
        1e-14,
        0.0,
        "lse",
    );
    assert_vec_near(&g, &softmax(&z), 1e-14, "lse_grad");
}

#[test]
fn patterns_recursion_and_generic_customs() {
    use patterns as pa;
    for (i, j) in [(0usize, 0usize), (0, 1), (2, 2), (1, 1), (1, 0), (3, 2)] {
        Probe::new("tuple_match", move |x| pa::tuple_match(x[0], x[1], i, j))
            .grad(move |x| {
                let (v, g) = pa::tuple_match_grad(x[0], x[1], i, j);
                (v, vec![g.0, g.1])
            })
            .jvp(move |x, t| pa::tuple_match_jvp(x[0], x[1], i, j, (t[0], t[1])))
            .hessian(move |x| {
                let (v, g, h) = pa::tuple_match_hessian(x[0], x[1], i, j);
                (v, vec![g.0, g.1], h)
            })
            .run(POINTS, away_from(2, -2.0, 2.0, 100.0, 0.5));
    }
    for n in 0..5 {
        Probe::new("ping", move |x| pa::ping(x[0], n))
            .grad(move |x| {
                let (v, d) = pa::ping_grad(x[0], n);
                (v, vec![d])
            })
            .jvp(move |x, t| pa::ping_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, d, h) = pa::ping_hessian(x[0], n);
                (v, vec![d], h)
            })
            .run(POINTS, range(1, -1.5, 1.5));
    }
    // ping(x, 2) = sin(ping(1.1x + 0.3, 0) * 1.1x) = sin((1.1x + 0.3) 1.1x).
    let x = 0.7;
    let (_, d) = pa::ping_grad(x, 2);
    assert_near(
        d,
        (1.1 * x * (1.1 * x + 0.3)).cos() * (2.42 * x + 0.33),
        1e-13,
        0.0,
        "ping(x, 2)",
    );
    let a3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Probe::new("local_array_by_ref", move |x| {
        pa::local_array_by_ref(a3(x), a3(&x[3..]))
    })
    .grad(move |x| {
        let (v, (gp, gq)) = pa::local_array_by_ref_grad(a3(x), a3(&x[3..]));
        (v, [gp, gq].concat())
    })
    .jvp(move |x, t| pa::local_array_by_ref_jvp(a3(x), a3(&x[3..]), (a3(t), a3(&t[3..]))))
    .hessian(move |x| {
        let (v, (gp, gq), h) = pa::local_array_by_ref_hessian(a3(x), a3(&x[3..]));
        (v, [gp, gq].concat(), h)
    })
    .run(POINTS, range(6, -1.5, 1.5));
    // The custom gradient is the true derivative: central differences and the Hessian agree, away
    // from the kink of |x| at 0.
    slice2!(
        pa::softsign_sum,
        softsign_sum_grad,
        softsign_sum_jvp,
        softsign_sum_grad_into,
        softsign_sum_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| v / (1.0 + v.abs()) + v / (1.0 + v.abs()).powi(2))
            .collect()
    })
    .run(POINTS, away_from(4, -3.0, 3.0, 100.0, 0.0));
    two(
        "softsign_generic",
        pa::softsign_generic,
        pa::softsign_generic_grad,
        pa::softsign_generic_jvp,
        pa::softsign_generic_grad_into,
    )
    .hessian(hess2(pa::softsign_generic_hessian))
    .run(POINTS, |r: &mut Lcg| loop {
        let (x, y) = (r.uniform(-2.0, 2.0), r.uniform(-2.0, 2.0));
        if (x * y).abs() > 0.02 && y.abs() > 0.02 {
            break vec![x, y];
        }
    });
    // At f32 too.
    let (v, (gx, gy)) = pa::softsign_generic_grad(0.5f32, -1.5f32);
    let (v64, (gx64, gy64)) = pa::softsign_generic_grad(0.5f64, -1.5f64);
    assert!(
        (v as f64 - v64).abs() < 1e-6
            && (gx as f64 - gx64).abs() < 1e-6
            && (gy as f64 - gy64).abs() < 1e-6
    );
}
