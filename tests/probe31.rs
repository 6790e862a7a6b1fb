//! probe31: a trust probe written as a new user would, from the test programs and examples of AD projects
//! not ported before, the mathematics written anew from the formulas (no code copied; each function's doc
//! line names what it follows):
//!
//! - Stan Math: `log_sum_exp` of two scalars and of a vector, `log1p_exp`, the normal, Student-t,
//!   logistic and Cauchy log densities, a `match` dispatching among them, `softmax` and `log_softmax`,
//!   `cholesky_decompose` and `log_determinant_spd`, `multi_normal_cholesky_lpdf`, a Lanczos `lgamma`.
//! - CppAD's examples and speed tests: `det_by_minor` (recursion on minors in local `Vec`s), `det_by_lu`
//!   (partial pivoting, row swaps), the `ode_taylor` Taylor-coefficient recursion, `poly` and its
//!   derivatives in `z` (`order = 3`), `sparse_hessian`'s and `sparse_jacobian`'s index-driven functions,
//!   an Euler integrator calling a right-hand side that writes an output parameter.
//! - Ceres' `jet_test.cc`: `atan2`, `hypot`, `pow` with every active pattern (and at a zero base, against
//!   docs/conventions.md), `fmin`/`fmax`, `copysign`, `cbrt`, `fma`, and `erf` (not in std) by its series.
//! - ADOL-C's examples: `speelpenning` (`f32`, generic over `T: Float`, run on `Dual`), the Helmholtz energy
//!   of `helm-auto-exam` as methods on a `Differentiable` struct, `gaussexam`'s Gaussian elimination (a
//!   `Vec` result), the lighthouse (an array result).
//! - Tapenade's tutorial: a loop around a fixed-point iteration, and the Babylonian square root in a `while`
//!   with a tolerance, whose derivatives converge to the implicit ones.
//!
//! - Second to fourth rounds, the same projects in other forms: `log_mix`, `gamma_lpdf`, `lbeta`,
//!   `std_normal_lcdf` through the series `erf`, `det_by_minor` generic over `T: Float` (on `Dual`), an array
//!   `log_softmax`, Ceres' jets in `f32`, an RK4 with a tuple state, functions composed with their inverses
//!   (CppAD's `atan2.cpp`), ADOL-C's `powexam` by repeated squaring, Kepler's equation by `break value`, a
//!   Gaussian mixture as a `Differentiable` struct; Thomas' tridiagonal solve, a running log-sum-exp over a
//!   copy, a bubble sort by tuple swaps, Horner by `mul_add`, a generic Newton square root in `f32`, a generic
//!   `Differentiable` struct, `match` arms of tuples, a labelled `break`, `_hvp` (CppAD's `mul_level`); a
//!   Kalman filter, array output buffers of an integrator, a recursion returning a tuple, a `mut Vec` by
//!   value, `&Vec` parameters, Simpson's rule of a closure, Gauss–Legendre over module constants, matrix rows
//!   zipped in a chain, a tuple of arrays, `f32` softmax cross-entropy, CppAD's `cond_exp`.
//! - `method_chains`: what this probe found. An `order = 2` method calling a method that calls another
//!   method of `self` (`h` → `self.f(x)` → `self.g(x)`, and the Helmholtz energy's `energy_x` →
//!   `self.energy(x)` → `self.forms(x)`) was a compile error at the call ("this method has no generic
//!   copy"): the middle method had no copy with a constant `self`. Fixed in `expand::method_generic_copy`
//!   and `shadow::Rewrite`; checked by hand to the third derivative.
//! - `fields_passed_twice`: found by `autodiff-fuzz --structs --seed 31031` while checking that fix (and
//!   failing on `main` too): a `[f64; 2]` field passed on whole to a slice callee a second time, after
//!   another field, was rustc's E0308 in generated code. Fixed in `reverse.rs`.
//!
//! Every function is checked at seeded points against central differences (`common::probe`), against a
//! derivative worked out by hand where one is easy, `_jvp` against `_vjp`/`_grad`, `_grad_into` with NaN-filled
//! buffers, and at `order = 2` the Hessian against central differences of `_grad`; vector results through
//! `_vjp`, `_jvp` and `_jacobian` against central differences of the function.

// The forms of the ported formulas: index loops, swaps through a temporary, `a = a * b`, the originals' names.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::manual_swap,
    clippy::excessive_precision,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::let_and_return,
    clippy::ptr_arg
)]

mod common;

use common::probe::{
    check_vector, dot, hess1, hess2, hess3, hess_slice, one, range, slice, three, two, Flat, Lcg,
    Probe, GARBAGE,
};

// ---------------------------------------------------------------------------------------------------
// Stan Math
// ---------------------------------------------------------------------------------------------------

pub mod stan {
    use autodiff::{differentiable, Float};

    /// Stan's `log_sum_exp(a, b)` (`stan/math/prim/fun/log_sum_exp.hpp`): `-inf` returns the other, else
    /// the larger plus `log1p(exp(smaller - larger))`.
    #[differentiable(order = 2)]
    pub fn log_sum_exp2(a: f64, b: f64) -> f64 {
        if a == f64::NEG_INFINITY {
            return b;
        }
        if b == f64::NEG_INFINITY {
            return a;
        }
        if a > b {
            a + (b - a).exp().ln_1p()
        } else {
            b + (a - b).exp().ln_1p()
        }
    }

    /// Stan's `log_sum_exp(v)` of a vector: the maximum by an index loop, then the shifted sum.
    #[differentiable(order = 2)]
    pub fn log_sum_exp(v: &[f64]) -> f64 {
        let n = v.len();
        if n == 0 {
            return f64::NEG_INFINITY;
        }
        let mut m = v[0];
        for i in 1..n {
            if v[i] > m {
                m = v[i];
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += (v[i] - m).exp();
        }
        m + s.ln()
    }

    /// Stan's `log1p_exp(a)` (`prim/fun/log1p_exp.hpp`): `a + log1p(exp(-a))` above 0, `log1p(exp(a))`
    /// below.
    #[differentiable(order = 3)]
    pub fn log1p_exp(a: f64) -> f64 {
        if a > 0.0 {
            a + (-a).exp().ln_1p()
        } else {
            a.exp().ln_1p()
        }
    }

    /// `normal_lpdf(y | mu, sigma)` summed over `y`, from the density's formula.
    #[differentiable(order = 2)]
    pub fn normal_lpdf(y: &[f64], mu: f64, sigma: f64) -> f64 {
        const NEG_LOG_SQRT_TWO_PI: f64 = -0.918_938_533_204_672_7;
        let inv_sigma = 1.0 / sigma;
        let log_sigma = sigma.ln();
        let mut lp = 0.0;
        for n in 0..y.len() {
            let z = (y[n] - mu) * inv_sigma;
            lp += NEG_LOG_SQRT_TWO_PI - log_sigma - 0.5 * z * z;
        }
        lp
    }

    /// The same density generic over `T: Float`, its constants through `T::from(..).unwrap()`.
    #[differentiable(order = 2)]
    pub fn normal_lpdf_t<T: Float>(y: &[T], mu: T, sigma: T) -> T {
        let half = T::from(0.5).unwrap();
        let c = T::from(std::f64::consts::TAU).unwrap().ln() * half;
        let mut lp = T::zero();
        for &v in y {
            let z = (v - mu) / sigma;
            lp = lp - c - sigma.ln() - half * z * z;
        }
        lp
    }

    /// `ln Γ(x)` for `x > 1/2` by Lanczos' approximation (g = 7, nine coefficients, the published
    /// table), the helper Stan's densities need (`lgamma`).
    #[differentiable(order = 2)]
    pub fn lgamma(x: f64) -> f64 {
        const G: f64 = 7.0;
        const C: [f64; 9] = [
            0.999_999_999_999_809_93,
            676.520_368_121_885_1,
            -1_259.139_216_722_402_8,
            771.323_428_777_653_13,
            -176.615_029_162_140_59,
            12.507_343_278_686_905,
            -0.138_571_095_265_720_12,
            9.984_369_578_019_571_6e-6,
            1.505_632_735_149_311_6e-7,
        ];
        let x = x - 1.0;
        let mut a = C[0];
        let t = x + G + 0.5;
        for i in 1..9 {
            a += C[i] / (x + i as f64);
        }
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
    }

    /// `student_t_lpdf(y | nu, mu, sigma)` from its formula, through `lgamma`.
    #[differentiable(order = 2)]
    pub fn student_t_lpdf(y: f64, nu: f64, mu: f64, sigma: f64) -> f64 {
        let z = (y - mu) / sigma;
        let half_nu_plus = 0.5 * (nu + 1.0);
        lgamma(half_nu_plus)
            - lgamma(0.5 * nu)
            - 0.5 * (nu * std::f64::consts::PI).ln()
            - sigma.ln()
            - half_nu_plus * (z * z / nu).ln_1p()
    }

    /// `logistic_lpdf(y | mu, s)`: `-z - ln s - 2 ln(1 + e^-z)`.
    #[differentiable(order = 2)]
    pub fn logistic_lpdf(y: f64, mu: f64, s: f64) -> f64 {
        let z = (y - mu) / s;
        -z - s.ln() - 2.0 * (-z).exp().ln_1p()
    }

    /// `cauchy_lpdf(y | mu, sigma)` with the location and scale as a tuple: `-ln π - ln σ - ln(1 + z²)`.
    #[differentiable(order = 2)]
    pub fn cauchy_lpdf(y: f64, theta: (f64, f64)) -> f64 {
        let (mu, sigma) = theta;
        let z = (y - mu) / sigma;
        -std::f64::consts::PI.ln() - sigma.ln() - (z * z).ln_1p()
    }

    /// A model's likelihood choosing its family with a `match` on an integer (Stan's `if (family == ..)`
    /// written as Rust would), summed over the data.
    #[differentiable(wrt(mu, scale), order = 2)]
    pub fn family_lpdf(family: usize, y: &[f64], mu: f64, scale: f64) -> f64 {
        let mut lp = 0.0;
        for &v in y.iter() {
            lp += match family {
                0 => normal_lpdf(&[v], mu, scale),
                1 => logistic_lpdf(v, mu, scale),
                2 | 3 => cauchy_lpdf(v, (mu, scale)),
                _ => student_t_lpdf(v, 4.0, mu, scale),
            };
        }
        lp
    }

    /// `softmax(v)` as Stan writes it: the maximum subtracted, exponentials into a `Vec`, divided by their
    /// sum.
    #[differentiable]
    pub fn softmax(v: &[f64]) -> Vec<f64> {
        let n = v.len();
        let mut m = v[0];
        for i in 1..n {
            m = m.max(v[i]);
        }
        let mut out = vec![0.0; n];
        let mut sum = 0.0;
        for i in 0..n {
            out[i] = (v[i] - m).exp();
            sum += out[i];
        }
        for i in 0..n {
            out[i] /= sum;
        }
        out
    }

    /// `log_softmax(v) = v - log_sum_exp(v)`, calling the vector `log_sum_exp`.
    #[differentiable]
    pub fn log_softmax(v: &[f64]) -> Vec<f64> {
        let lse = log_sum_exp(v);
        v.iter().map(|x| x - lse).collect()
    }

    /// Stan's `cholesky_decompose` (Cholesky–Banachiewicz loops) of a row-major matrix, the factor
    /// returned row-major in a `Vec`.
    #[differentiable(order = 2)]
    pub fn cholesky(a: &[f64], n: usize) -> Vec<f64> {
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let mut s = a[i * n + j];
                for k in 0..j {
                    s -= l[i * n + k] * l[j * n + k];
                }
                if i == j {
                    l[i * n + i] = s.sqrt();
                } else {
                    l[i * n + j] = s / l[j * n + j];
                }
            }
        }
        l
    }

    /// `log_determinant_spd(X Xᵀ + I)` = `2 Σ ln L_ii`, the matrix built in a local `Vec` and factored by
    /// `cholesky`. (A local `vec![vec![0.0; n]; n]` with `n = x.len()` passed whole to `cholesky` is
    /// refused: README, "a matrix made in the body with a shape computed there passed whole to a call".)
    #[differentiable(order = 2)]
    pub fn log_det_spd(x: &[Vec<f64>]) -> f64 {
        let n = x.len();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s = if i == j { 1.0 } else { 0.0 };
                for k in 0..x[i].len() {
                    s += x[i][k] * x[j][k];
                }
                a[i * n + j] = s;
            }
        }
        let l = cholesky(&a, n);
        let mut ld = 0.0;
        for i in 0..n {
            ld += l[i * n + i].ln();
        }
        2.0 * ld
    }

    /// `multi_normal_cholesky_lpdf(y | mu, L)`: forward substitution `L z = y - mu`, then
    /// `-n/2 ln 2π - Σ ln L_ii - |z|²/2`; `L` a nested array.
    #[differentiable(order = 2)]
    pub fn multi_normal_cholesky_lpdf(y: &[f64; 3], mu: &[f64; 3], l: &[[f64; 3]; 3]) -> f64 {
        let mut z = [0.0; 3];
        for i in 0..3 {
            let mut r = y[i] - mu[i];
            for j in 0..i {
                r -= l[i][j] * z[j];
            }
            z[i] = r / l[i][i];
        }
        let mut lp = -1.5 * (2.0 * std::f64::consts::PI).ln();
        for i in 0..3 {
            lp -= l[i][i].ln() + 0.5 * z[i] * z[i];
        }
        lp
    }
}

// ---------------------------------------------------------------------------------------------------
// CppAD
// ---------------------------------------------------------------------------------------------------

pub mod cppad {
    use autodiff::differentiable;

    /// CppAD's `det_by_minor` (`speed/src/det_by_minor.hpp`): expansion along the first row, recursively
    /// on the minors, each built in a local `Vec` and passed on as a slice.
    #[differentiable(order = 2)]
    pub fn det_by_minor(a: &[f64], n: usize) -> f64 {
        if n == 1 {
            return a[0];
        }
        let mut det = 0.0;
        let mut sign = 1.0;
        for j in 0..n {
            let mut minor = vec![0.0; (n - 1) * (n - 1)];
            let mut k = 0;
            for r in 1..n {
                for c in 0..n {
                    if c != j {
                        minor[k] = a[r * n + c];
                        k += 1;
                    }
                }
            }
            det += sign * a[j] * det_by_minor(&minor, n - 1);
            sign = -sign;
        }
        det
    }

    /// CppAD's `det_by_lu` (`speed/src/det_by_lu.hpp`): LU with partial pivoting on a copy, a row swap
    /// flipping the sign, the product of the pivots.
    #[differentiable(order = 2)]
    pub fn det_by_lu(a: &[f64], n: usize) -> f64 {
        let mut m = a.to_vec();
        let mut det = 1.0;
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if m[i * n + k].abs() > m[p * n + k].abs() {
                    p = i;
                }
            }
            if p != k {
                for j in 0..n {
                    let t = m[k * n + j];
                    m[k * n + j] = m[p * n + j];
                    m[p * n + j] = t;
                }
                det = -det;
            }
            let pivot = m[k * n + k];
            if pivot == 0.0 {
                return 0.0;
            }
            det *= pivot;
            for i in k + 1..n {
                let factor = m[i * n + k] / pivot;
                for j in k..n {
                    m[i * n + j] -= factor * m[k * n + j];
                }
            }
        }
        det
    }

    /// CppAD's `ode_taylor.cpp`: the ODE `y0' = x0`, `yi' = xi y(i-1)`, `y(0) = 0`, solved by its Taylor
    /// coefficients (`y[i][k+1] = x[i] y[i-1][k] / (k+1)`) to the order that makes it exact, evaluated at
    /// `t` by Horner; the sum of the components.
    #[differentiable(order = 2)]
    pub fn ode_taylor(x: &[f64], t: f64) -> f64 {
        let n = x.len();
        let order = n + 1;
        let mut y = vec![vec![0.0; order + 1]; n];
        for k in 0..order {
            for i in 0..n {
                let f_k = if i == 0 {
                    if k == 0 {
                        x[0]
                    } else {
                        0.0
                    }
                } else {
                    x[i] * y[i - 1][k]
                };
                y[i][k + 1] = f_k / (k + 1) as f64;
            }
        }
        let mut total = 0.0;
        for i in 0..n {
            let mut yi = 0.0;
            for k in (0..=order).rev() {
                yi = yi * t + y[i][k];
            }
            total += yi;
        }
        total
    }

    /// CppAD's speed test `poly`: Horner over the coefficients; only `z` active, so `f_derivatives` gives
    /// `p(z), p'(z), p''(z), p'''(z)`.
    #[differentiable(wrt(z), order = 3)]
    pub fn poly(a: &[f64], z: f64) -> f64 {
        let mut p = 0.0;
        for i in (0..a.len()).rev() {
            p = p * z + a[i];
        }
        p
    }

    /// The same Horner with the coefficients active too.
    #[differentiable(order = 2)]
    pub fn poly_all(a: &[f64], z: f64) -> f64 {
        let mut p = 0.0;
        for i in (0..a.len()).rev() {
            p = p * z + a[i];
        }
        p
    }

    /// In the manner of CppAD's `sparse_hes_fun`: a sum over index pairs `(row[k], col[k])` given as
    /// integer slices, `exp(x[r]) * x[c]`.
    #[differentiable(order = 2)]
    pub fn sparse_hes_fun(x: &[f64], row: &[usize], col: &[usize]) -> f64 {
        let mut f = 0.0;
        for k in 0..row.len() {
            f += x[row[k]].exp() * x[col[k]];
        }
        f
    }

    /// In the manner of CppAD's `sparse_jac_fun`: `y[k] = x[r] * x[c]^2` over the index pairs, a `Vec`
    /// result.
    #[differentiable]
    pub fn sparse_jac_fun(x: &[f64], row: &[usize], col: &[usize]) -> Vec<f64> {
        let mut y = vec![0.0; row.len()];
        for k in 0..row.len() {
            y[k] = x[row[k]] * x[col[k]] * x[col[k]];
        }
        y
    }

    /// The right-hand side of `ode_taylor`'s system written into an output parameter.
    #[differentiable]
    pub fn rhs(y: &[f64], x: &[f64], dydt: &mut [f64]) {
        dydt[0] = x[0];
        for i in 1..y.len() {
            dydt[i] = x[i] * y[i - 1];
        }
    }

    /// Euler steps of `rhs` (CppAD's `ode_evaluate`, in the simplest method), the derivative buffer a
    /// local `Vec` passed as `&mut`.
    #[differentiable(order = 2)]
    pub fn euler(x: &[f64], t: f64, steps: usize) -> f64 {
        let n = x.len();
        let h = t / steps as f64;
        let mut y = vec![0.0; n];
        let mut dydt = vec![0.0; n];
        for _ in 0..steps {
            rhs(&y, x, &mut dydt);
            for i in 0..n {
                y[i] += h * dydt[i];
            }
        }
        y[n - 1]
    }
}

// ---------------------------------------------------------------------------------------------------
// Ceres' jet tests
// ---------------------------------------------------------------------------------------------------

pub mod ceres {
    use autodiff::differentiable;

    /// `atan2` with both, the first and the second argument active (`jet_test.cc`'s `Atan2`).
    #[differentiable(order = 2)]
    pub fn atan2_patterns(y: f64, x: f64) -> f64 {
        y.atan2(x) + y.atan2(2.0) + 0.5_f64.atan2(x)
    }

    /// `hypot` of two active values and of one active value and a constant (`jet_test.cc`'s `Hypot2`).
    #[differentiable(order = 2)]
    pub fn hypot_patterns(x: f64, y: f64) -> f64 {
        x.hypot(y) + f64::hypot(x, 3.0) + 2.0_f64.hypot(y)
    }

    /// `pow` with every active pattern (`jet_test.cc`'s `Pow` cases): jet base with jet, double and
    /// integer exponents, double base with jet exponent.
    #[differentiable(order = 2)]
    pub fn pow_patterns(x: f64, y: f64) -> f64 {
        x.powf(y) + x.powf(2.5) + 1.7_f64.powf(y) + x.powi(3) + f64::powf(x, -0.5) + x.powi(-2)
    }

    /// The zero-base pow of `jet_test.cc` (`pow(0, y)` for `y > 1` and `y = 1`).
    #[differentiable(order = 2)]
    pub fn pow_base(x: f64, y: f64) -> f64 {
        x.powf(y)
    }

    /// `fmin`/`fmax` of two jets and of a jet and a constant.
    #[differentiable(order = 2)]
    pub fn fmin_fmax(x: f64, y: f64) -> f64 {
        x.max(y) * 2.0 + x.min(0.3) - y.max(-0.2) + f64::min(x, y) * y
    }

    /// `copysign` of a jet with a jet sign, and of a constant with a jet sign (`jet_test.cc`'s
    /// `CopySign`): the sign carries no derivative.
    #[differentiable(order = 2)]
    pub fn copysign_patterns(x: f64, y: f64) -> f64 {
        x.copysign(y) + 2.0_f64.copysign(x) * x + (x * y).copysign(-1.0)
    }

    /// `cbrt`, also of a product (`jet_test.cc`'s `Cbrt`).
    #[differentiable(order = 2)]
    pub fn cbrt_patterns(x: f64, y: f64) -> f64 {
        x.cbrt() * y + (x * y).cbrt()
    }

    /// `fma` and the elementary functions `jet_test.cc` checks one by one, over an array.
    #[differentiable(order = 2)]
    pub fn elementary(v: [f64; 3]) -> f64 {
        let [a, b, c] = v;
        a.mul_add(b, c) + a.exp2() + b.log10() + c.sinh() * a.cosh() + b.log2() + a.exp_m1()
            - c.tanh()
    }

    /// `erf`, which Rust's std lacks, by its Maclaurin series
    /// `2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1))`, summed until the term is negligible.
    #[differentiable(order = 3)]
    pub fn erf(x: f64) -> f64 {
        let mut term = x;
        let mut sum = x;
        let mut n = 0;
        while n < 80 {
            n += 1;
            term *= -x * x / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }
}

// ---------------------------------------------------------------------------------------------------
// ADOL-C
// ---------------------------------------------------------------------------------------------------

pub mod adolc {
    use autodiff::{differentiable, Differentiable, Float};

    /// ADOL-C's `speelpenning.cpp`: the product of the inputs, in `f32`.
    #[differentiable(order = 2)]
    pub fn speelpenning_f32(x: &[f32]) -> f32 {
        let mut y = 1.0;
        for i in 0..x.len() {
            y *= x[i];
        }
        y
    }

    /// The same product generic over `T: Float`, by a fold.
    #[differentiable(order = 2)]
    pub fn speelpenning<T: Float>(x: &[T]) -> T {
        x.iter().fold(T::one(), |p, &v| p * v)
    }

    /// ADOL-C's `helm-auto-exam.cpp`: the Helmholtz free energy of a mixture,
    /// `RT Σ x_i ln(x_i / (1 - bᵀx)) - xᵀAx / (√8 bᵀx) ln((1 + (1+√2) bᵀx) / (1 + (1-√2) bᵀx))`,
    /// with `b` and `A` the data of a struct.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Helm {
        pub b: Vec<f64>,
        pub rt: f64,
        #[no_grad]
        pub a: Vec<f64>,
    }

    impl Helm {
        /// `bᵀx` and `xᵀAx`, a helper method returning a tuple.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn forms(&self, x: &[f64]) -> (f64, f64) {
            let n = x.len();
            let mut bx = 0.0;
            let mut xax = 0.0;
            for i in 0..n {
                bx += self.b[i] * x[i];
                let mut ax = 0.0;
                for j in 0..n {
                    ax += self.a[i * n + j] * x[j];
                }
                xax += x[i] * ax;
            }
            (bx, xax)
        }

        /// The energy, `self` and `x` active.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(&self, x: &[f64]) -> f64 {
            let (bx, xax) = self.forms(x);
            let mut he = 0.0;
            for i in 0..x.len() {
                he += x[i] * (x[i] / (1.0 - bx)).ln();
            }
            let r2 = std::f64::consts::SQRT_2;
            let log_term = ((1.0 + (1.0 + r2) * bx) / (1.0 + (1.0 - r2) * bx)).ln();
            self.rt * he - xax * log_term / (8.0_f64.sqrt() * bx)
        }

        /// The energy in `x` alone, `self` a constant, at `order = 2` through the copies of `energy` and
        /// `forms` with a constant `self` (found by this probe: `energy` calls `self.forms(x)`, and had no
        /// copy, so this was an error at the call).
        #[differentiable(order = 2)]
        pub fn energy_x(&self, x: &[f64]) -> f64 {
            self.energy(x)
        }
    }

    /// ADOL-C's `gaussexam.cpp`: `A x = b` by Gaussian elimination with partial pivoting on local copies
    /// (a `Vec<Vec<f64>>` and a `Vec`), then back substitution; the solution returned.
    #[differentiable]
    pub fn gauss_solve(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let mut m: Vec<Vec<f64>> = a.to_vec();
        let mut r = b.to_vec();
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if m[i][k].abs() > m[p][k].abs() {
                    p = i;
                }
            }
            if p != k {
                m.swap(p, k);
                r.swap(p, k);
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

    /// ADOL-C's lighthouse (Griewank and Walther's running example), the spot on the quay as an array
    /// result: `y1 = ν tan(ωt) / (γ - tan(ωt))`, `y2 = γ y1`.
    #[differentiable]
    pub fn lighthouse(p: [f64; 4]) -> [f64; 2] {
        let [nu, gamma, omega, t] = p;
        let tn = (omega * t).tan();
        let y1 = nu * tn / (gamma - tn);
        [y1, gamma * y1]
    }
}

// ---------------------------------------------------------------------------------------------------
// Tapenade's tutorial
// ---------------------------------------------------------------------------------------------------

pub mod tapenade {
    use autodiff::differentiable;

    /// Tapenade's tutorial loop around a fixed-point iteration: for each `x_i`, `z = x_i + cos(z) / 2`
    /// iterated until it settles (a contraction), then `Σ w_i z_i`.
    #[differentiable(wrt(x), order = 2)]
    pub fn fixed_point_sum(x: &[f64], w: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            let mut z: f64 = 0.0;
            let mut iter = 0;
            loop {
                let next = x[i] + 0.5 * z.cos();
                let done = (next - z).abs() < 1e-15 || iter >= 200;
                z = next;
                iter += 1;
                if done {
                    break;
                }
            }
            total += w[i] * z;
        }
        total
    }

    /// The Babylonian square root in a `while` with a tolerance: `s = (s + x / s) / 2`.
    #[differentiable(order = 2)]
    pub fn babylonian(x: f64) -> f64 {
        let mut s = x.max(1.0);
        let mut prev = 0.0;
        while (s - prev).abs() > 1e-15 * s {
            prev = s;
            s = 0.5 * (s + x / s);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// A second round: more of the same projects, in forms the first round did not use
// ---------------------------------------------------------------------------------------------------

pub mod more {
    use super::ceres::erf;
    use super::stan::{lgamma, log_sum_exp2};
    use autodiff::{differentiable, Differentiable, Float};

    /// Stan's `log_mix(theta, lambda1, lambda2)`: `log_sum_exp(ln θ + λ1, ln(1-θ) + λ2)`.
    #[differentiable(order = 2)]
    pub fn log_mix(theta: f64, lambda1: f64, lambda2: f64) -> f64 {
        log_sum_exp2(theta.ln() + lambda1, (1.0 - theta).ln() + lambda2)
    }

    /// Stan's `gamma_lpdf(y | alpha, beta)`: `α ln β - lgamma(α) + (α-1) ln y - β y`.
    #[differentiable(order = 2)]
    pub fn gamma_lpdf(y: f64, alpha: f64, beta: f64) -> f64 {
        alpha * beta.ln() - lgamma(alpha) + (alpha - 1.0) * y.ln() - beta * y
    }

    /// Stan's `lbeta(a, b)`: three `lgamma` calls in one expression.
    #[differentiable(order = 2)]
    pub fn lbeta(a: f64, b: f64) -> f64 {
        lgamma(a) + lgamma(b) - lgamma(a + b)
    }

    /// Stan's `Phi(x) = (1 + erf(x / √2)) / 2` and `std_normal_lcdf = ln Phi`, through the series `erf`
    /// (an `order = 3` callee of an `order = 2` caller).
    #[differentiable(order = 2)]
    pub fn std_normal_lcdf(x: f64) -> f64 {
        let phi = 0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2));
        phi.ln()
    }

    /// CppAD's `det_by_minor` generic over `T: Float`: the recursion on `T`.
    #[differentiable(order = 2)]
    pub fn det_minor_t<T: Float>(a: &[T], n: usize) -> T {
        if n == 1 {
            return a[0];
        }
        let mut det = T::zero();
        for j in 0..n {
            let mut minor = vec![T::zero(); (n - 1) * (n - 1)];
            for r in 1..n {
                for c in 0..n {
                    if c < j {
                        minor[(r - 1) * (n - 1) + c] = a[r * n + c];
                    } else if c > j {
                        minor[(r - 1) * (n - 1) + c - 1] = a[r * n + c];
                    }
                }
            }
            let term = a[j] * det_minor_t(&minor, n - 1);
            det = if j % 2 == 0 { det + term } else { det - term };
        }
        det
    }

    /// Stan's `log_softmax` of a fixed-size array, an array result built in a local `[0.0; 4]`.
    #[differentiable]
    pub fn log_softmax4(v: [f64; 4]) -> [f64; 4] {
        let mut m = v[0];
        for i in 1..4 {
            if v[i] > m {
                m = v[i];
            }
        }
        let mut s = 0.0;
        for x in v.iter() {
            s += (x - m).exp();
        }
        let lse = m + s.ln();
        let mut out = [0.0; 4];
        for i in 0..4 {
            out[i] = v[i] - lse;
        }
        out
    }

    /// Ceres' jet functions in `f32` at `order = 2`: `atan2`, `hypot`, `powf`, `cbrt`, `copysign`.
    #[differentiable(order = 2)]
    pub fn jets_f32(x: f32, y: f32) -> f32 {
        x.atan2(y) + x.hypot(y) + x.powf(y) + (x * y).cbrt() + x.copysign(-y)
    }

    /// A polar angle times the radius, generic over `T: Float` with an array parameter.
    #[differentiable(order = 2)]
    pub fn polar_angle<T: Float>(p: [T; 2]) -> T {
        p[1].atan2(p[0]) * p[0].hypot(p[1])
    }

    /// ADOL-C's `odexam`-style oscillator `y'' = -k y` by classical RK4, the state a tuple carried
    /// through the loop by destructuring assignment, a tuple result.
    #[differentiable]
    pub fn rk4_oscillator(k: f64, y0: (f64, f64), h: f64, steps: usize) -> (f64, f64) {
        let (mut y, mut v) = y0;
        for _ in 0..steps {
            let (k1y, k1v) = (v, -k * y);
            let (k2y, k2v) = (v + 0.5 * h * k1v, -k * (y + 0.5 * h * k1y));
            let (k3y, k3v) = (v + 0.5 * h * k2v, -k * (y + 0.5 * h * k2y));
            let (k4y, k4v) = (v + h * k3v, -k * (y + h * k3y));
            (y, v) = (
                y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y),
                v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
            );
        }
        (y, v)
    }

    /// CppAD's `example/general/atan2.cpp` and friends: functions composed with their inverses, so the
    /// derivative is exactly the number of pairs and the second derivative 0 (for `0.1 < x < 0.9`).
    #[differentiable(order = 3)]
    pub fn inverse_identities(x: f64) -> f64 {
        let s = x.sin();
        let c = x.cos();
        s.atan2(c)
            + x.sinh().asinh()
            + x.cosh().acosh()
            + x.tanh().atanh()
            + x.ln().exp()
            + x.exp_m1().ln_1p()
            + x.powi(3).cbrt()
            + (x * x).sqrt()
            + x.exp2().log2()
            + 10.0_f64.powf(x).log10()
    }

    /// ADOL-C's `powexam`: `x^n` by repeated squaring, the exponent an integer driving the loop.
    #[differentiable(order = 3)]
    pub fn pow_by_squaring(x: f64, n: u32) -> f64 {
        let mut result = 1.0;
        let mut base = x;
        let mut e = n;
        while e > 0 {
            if e % 2 == 1 {
                result *= base;
            }
            base *= base;
            e /= 2;
        }
        result
    }

    /// Kepler's equation `E - e sin E = M` by a fixed-point `loop` whose value leaves by `break` (the
    /// Tapenade tutorial's fixed point in another guise); the eccentric anomaly.
    #[differentiable(order = 2)]
    pub fn kepler(m: f64, e: f64) -> f64 {
        let mut big_e = m;
        let mut i = 0;
        let solved = loop {
            let next = m + e * big_e.sin();
            i += 1;
            if (next - big_e).abs() < 1e-15 || i == 500 {
                break next;
            }
            big_e = next;
        };
        solved
    }

    /// A two-component Gaussian mixture as a `Differentiable` struct (Stan's `log_mix` of normals):
    /// weights through a logit, arrays of means, a `Vec` of log-scales; an associated helper called as
    /// `Self::..`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Mixture {
        pub logit_w: f64,
        pub mu: [f64; 2],
        pub log_sigma: Vec<f64>,
    }

    impl Mixture {
        /// One normal's log density at `y`.
        #[differentiable(order = 2)]
        pub fn normal1(y: f64, mu: f64, log_sigma: f64) -> f64 {
            let z = (y - mu) / log_sigma.exp();
            -0.918_938_533_204_672_7 - log_sigma - 0.5 * z * z
        }

        /// The mixture's log likelihood of the data.
        #[differentiable(wrt(self), order = 2)]
        pub fn log_lik(&self, y: &[f64]) -> f64 {
            let w = 1.0 / (1.0 + (-self.logit_w).exp());
            let mut lp = 0.0;
            for &v in y {
                let a = w.ln() + Self::normal1(v, self.mu[0], self.log_sigma[0]);
                let b = (1.0 - w).ln() + Self::normal1(v, self.mu[1], self.log_sigma[1]);
                lp += log_sum_exp2(a, b);
            }
            lp
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A third round: the overwrite hazards of in-place numeric code (values read after they are rewritten)
// ---------------------------------------------------------------------------------------------------

pub mod third {
    use super::stan::log_sum_exp2;
    use autodiff::{differentiable, Differentiable, Float};

    /// The Thomas algorithm for a tridiagonal system (the banded solve of ADOL-C's and CppAD's ODE
    /// examples), the forward sweep rewriting local copies in place and the back substitution reading
    /// the values just written.
    #[differentiable]
    pub fn thomas(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
        let n = b.len();
        let mut cp = c.to_vec();
        let mut dp = d.to_vec();
        cp[0] = c[0] / b[0];
        dp[0] = d[0] / b[0];
        for i in 1..n {
            let m = b[i] - a[i] * cp[i - 1];
            if i < n - 1 {
                cp[i] = c[i] / m;
            }
            dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
        }
        let mut x = dp.clone();
        for i in (0..n - 1).rev() {
            x[i] = x[i] - cp[i] * x[i + 1];
        }
        x
    }

    /// A running log-sum-exp written over a copy in place (`v[i] = lse(v[i-1], v[i])`, Stan's
    /// `cumulative_log_sum_exp`), two of its entries multiplied.
    #[differentiable(order = 2)]
    pub fn cumulative_lse(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        for i in 1..n {
            v[i] = log_sum_exp2(v[i - 1], v[i]);
        }
        v[n - 1] * v[n / 2]
    }

    /// A bubble sort by tuple swaps `(v[j], v[j + 1]) = (v[j + 1], v[j])`, then weights by rank.
    #[differentiable(order = 2)]
    pub fn ranked(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let n = v.len();
        for i in 0..n {
            for j in 0..n - 1 - i {
                if v[j] > v[j + 1] {
                    (v[j], v[j + 1]) = (v[j + 1], v[j]);
                }
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += (i as f64 + 1.0) * v[i] * v[i];
        }
        s
    }

    /// Horner by `mul_add`, every argument active (Ceres' `fma` jets).
    #[differentiable(order = 2)]
    pub fn horner_fma(c: &[f64], x: f64) -> f64 {
        let mut p = c[c.len() - 1];
        for i in (0..c.len() - 1).rev() {
            p = p.mul_add(x, c[i]);
        }
        p
    }

    /// Newton's square root generic over `T: Float`, the tolerance through `T::from`, a `while` on an
    /// active comparison and a counter.
    #[differentiable(order = 2)]
    pub fn newton_sqrt<T: Float>(a: T) -> T {
        let half = T::from(0.5).unwrap();
        let tol = T::from(1e-7).unwrap() * T::epsilon();
        let mut s = if a > T::one() { a } else { T::one() };
        let mut k = 0;
        while k < 100 {
            let next = half * (s + a / s);
            let step = (next - s).abs();
            s = next;
            k += 1;
            if step <= tol * s {
                break;
            }
        }
        s
    }

    /// A generic `Differentiable` struct with a method differentiated in `self` and `x`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Quadratic<T> {
        pub a: T,
        pub b: T,
        pub c: T,
    }

    impl<T: Float> Quadratic<T> {
        #[differentiable(wrt(self, x), order = 2)]
        pub fn eval(&self, x: T) -> T {
            (self.a * x + self.b) * x + self.c
        }
    }

    /// A `match` whose arms are tuples, chosen by the loop's counter, and a shadowed active local.
    #[differentiable(order = 2)]
    pub fn match_tuples(x: &[f64]) -> f64 {
        let mut acc = 0.0;
        for k in 0..x.len() {
            let x = x[k] * 0.5;
            let (s, c) = match k % 3 {
                0 => (x.sin(), x.cos()),
                1 => (x.cos(), -x.sin()),
                _ => (x * x, 2.0 * x),
            };
            let x = s * c + x;
            acc += x;
        }
        acc
    }

    /// A labelled `break` out of two loops with an accumulator written just before (Tapenade's
    /// tutorial's search loops).
    #[differentiable(order = 2)]
    pub fn labelled_search(x: &[f64], limit: f64) -> f64 {
        let mut acc = 0.0;
        let mut last = 0.0;
        'outer: for i in 0..x.len() {
            for j in i..x.len() {
                last = x[i] * x[j];
                acc += last;
                if acc > limit {
                    break 'outer;
                }
            }
        }
        acc + last * last
    }
}

// ---------------------------------------------------------------------------------------------------
// A fourth round: filters, integrators and quadratures in the parameter forms API.md lists
// ---------------------------------------------------------------------------------------------------

pub mod fourth {
    use autodiff::differentiable;

    /// Gauss–Legendre nodes and weights on `[-1, 1]`, five points (the published table).
    pub const GL_X: [f64; 5] = [
        -0.906_179_845_938_664,
        -0.538_469_310_105_683,
        0.0,
        0.538_469_310_105_683,
        0.906_179_845_938_664,
    ];
    pub const GL_W: [f64; 5] = [
        0.236_926_885_056_189,
        0.478_628_670_499_366,
        0.568_888_888_888_889,
        0.478_628_670_499_366,
        0.236_926_885_056_189,
    ];

    /// Stan's `gaussian_dlm_obs` for the local-level model, as a scalar Kalman filter: the state mean
    /// and variance carried as a tuple, the log-likelihood accumulated; `q` and `r` active, `y` data.
    #[differentiable(wrt(q, r), order = 2)]
    pub fn local_level_lik(q: f64, r: f64, y: &[f64]) -> f64 {
        let (mut m, mut p) = (0.0, 10.0);
        let mut ll = 0.0;
        for &obs in y {
            p += q;
            let f = p + r;
            let e = obs - m;
            ll -= 0.5 * ((2.0 * std::f64::consts::PI * f).ln() + e * e / f);
            let k = p / f;
            (m, p) = (m + k * e, (1.0 - k) * p);
        }
        ll
    }

    /// The oscillator's right-hand side into an array output parameter.
    #[differentiable]
    pub fn sho_rhs(y: &[f64; 2], k: f64, dy: &mut [f64; 2]) {
        dy[0] = y[1];
        dy[1] = -k * y[0];
    }

    /// Midpoint steps of `sho_rhs` (Stan's `ode_*` integrators in their simplest form), local arrays
    /// passed as output buffers.
    #[differentiable(order = 2)]
    pub fn sho_midpoint(k: f64, y0: [f64; 2], h: f64) -> f64 {
        let mut y = y0;
        let mut d1 = [0.0; 2];
        let mut d2 = [0.0; 2];
        for _ in 0..8 {
            sho_rhs(&y, k, &mut d1);
            let mid = [y[0] + 0.5 * h * d1[0], y[1] + 0.5 * h * d1[1]];
            sho_rhs(&mid, k, &mut d2);
            y[0] += h * d2[0];
            y[1] += h * d2[1];
        }
        y[0] * y[0] + y[1]
    }

    /// A two-term recurrence by recursion returning a tuple (`(a, b) -> (b, a + x b)`).
    #[differentiable]
    pub fn recurrence(x: f64, n: usize) -> (f64, f64) {
        if n == 0 {
            return (0.0, 1.0);
        }
        let (a, b) = recurrence(x, n - 1);
        (b, a + x * b)
    }

    /// The recurrence's second entry at `order = 2`.
    #[differentiable(order = 2)]
    pub fn recurrence_last(x: f64, n: usize) -> f64 {
        let (_, b) = recurrence(x, n);
        b
    }

    /// Stan's simplex transform written on a `mut` `Vec` taken by value: exponentiate in place,
    /// normalise in place, then the entropy.
    #[differentiable(order = 2)]
    pub fn simplex_entropy(mut x: Vec<f64>) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            x[i] = x[i].exp();
            total += x[i];
        }
        for i in 0..x.len() {
            x[i] /= total;
        }
        let mut h = 0.0;
        for v in x.iter() {
            h -= v * v.ln();
        }
        h
    }

    /// A weighted sum of squares over `&Vec<f64>` parameters.
    #[differentiable(order = 2)]
    pub fn weighted_ss(x: &Vec<f64>, w: &Vec<f64>) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += w[i] * x[i] * x[i];
        }
        s.sqrt()
    }

    /// Simpson's rule on `[lo, hi]` of a Gaussian bump whose centre and width are active, the integrand a
    /// closure capturing them (Stan's `integrate_1d` in its simplest form).
    #[differentiable(order = 2)]
    pub fn simpson_bump(mu: f64, s: f64, lo: f64, hi: f64) -> f64 {
        let f = |t: f64| (-(t - mu) * (t - mu) / (2.0 * s * s)).exp();
        let n = 200;
        let h = (hi - lo) / n as f64;
        let mut acc = f(lo) + f(hi);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            acc += w * f(lo + i as f64 * h);
        }
        acc * h / 3.0
    }

    /// Gauss–Legendre quadrature of `exp(a t) sin(b t)` over `[0, 1]` with the module's constant tables.
    #[differentiable(order = 2)]
    pub fn gauss_legendre(a: f64, b: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..5 {
            let t = 0.5 * (GL_X[i] + 1.0);
            s += GL_W[i] * (a * t).exp() * (b * t).sin();
        }
        0.5 * s
    }

    /// ADOL-C's `gaussexam` residual `|A x - b|²`, the rows iterated and zipped with `x`.
    #[differentiable(order = 2)]
    pub fn residual(a: &[Vec<f64>], x: &[f64], b: &[f64]) -> f64 {
        let mut r = 0.0;
        for (i, row) in a.iter().enumerate() {
            let ax: f64 = row.iter().zip(x.iter()).map(|(p, q)| p * q).sum();
            r += (ax - b[i]) * (ax - b[i]);
        }
        r
    }

    /// The length of a segment given as a tuple of two points (Ceres' `hypot`).
    #[differentiable(order = 2)]
    pub fn segment_len(p: ([f64; 2], [f64; 2])) -> f64 {
        let (a, b) = p;
        (b[0] - a[0]).hypot(b[1] - a[1])
    }

    /// Softmax cross-entropy in `f32` over a slice, a `Vec` local, the label an index.
    #[differentiable(order = 2)]
    pub fn xent_f32(logits: &[f32], label: usize) -> f32 {
        let mut m = logits[0];
        for &z in logits.iter() {
            m = m.max(z);
        }
        let e: Vec<f32> = logits.iter().map(|z| (z - m).exp()).collect();
        let total: f32 = e.iter().sum();
        total.ln() + m - logits[label]
    }

    /// CppAD's `cond_exp` examples: a chain of conditions on active values with `abs` and `max`.
    #[differentiable(order = 2)]
    pub fn cond_exp(x: f64, y: f64) -> f64 {
        if x < -0.5 {
            (x * y).abs()
        } else if x < 0.5 {
            x.max(y) * y
        } else if y > x {
            y.ln_1p() * x
        } else {
            (x - y).powi(2)
        }
    }

    /// Euler steps of the linear ODE `y' = A y` (CppAD's `ode` speed test), the product by rows in an
    /// iterator chain inside the loop, `A`'s entries active.
    #[differentiable(order = 2)]
    pub fn lin_ode(a: &[Vec<f64>], y0: &[f64], t: f64) -> f64 {
        let n = y0.len();
        let steps = 10;
        let h = t / steps as f64;
        let mut y = y0.to_vec();
        for _ in 0..steps {
            let mut dy = vec![0.0; n];
            for i in 0..n {
                dy[i] = a[i].iter().zip(y.iter()).map(|(p, q)| p * q).sum();
            }
            for i in 0..n {
                y[i] += h * dy[i];
            }
        }
        y.iter().sum()
    }
}

// ---------------------------------------------------------------------------------------------------
// Found: methods calling methods at `order = K`
// ---------------------------------------------------------------------------------------------------

/// The minimal programs of what this probe found: an `order = 2` method calling a method that calls another
/// method of `self` (`self.g(x)`) was an error at the call ("this method has no generic copy"), the middle
/// method having no copy with a constant `self`, since it passed `self` on. It now has one, which calls the
/// copies of its callees.
pub mod method_chains {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Chain {
        pub b: f64,
        pub w: [f64; 2],
    }

    impl Chain {
        /// `b x³ + w0 x`.
        #[differentiable(order = 2)]
        pub fn g(&self, x: f64) -> f64 {
            self.b * x * x * x + self.w[0] * x
        }

        /// `sin g(x) + w1 g(2x)`, first order only: its copy is made without being asked.
        #[differentiable]
        pub fn f(&self, x: f64) -> f64 {
            self.g(x).sin() + self.w[1] * self.g(2.0 * x)
        }

        /// `x f(x)`, three levels of `self.m(..)`.
        #[differentiable(order = 2)]
        pub fn h(&self, x: f64) -> f64 {
            self.f(x) * x
        }

        /// `self` by value: `w0 sin x + b x`.
        #[differentiable(wrt(self, x))]
        pub fn by_value(self, x: f64) -> f64 {
            self.w[0] * x.sin() + self.b * x
        }

        /// A `&self` method calling one taking `self` by value.
        #[differentiable]
        pub fn through_value(&self, x: f64) -> f64 {
            self.by_value(x) * self.by_value(x)
        }

        /// `through_value(x) + x²`, at `order = 3`.
        #[differentiable(order = 3)]
        pub fn outer_value(&self, x: f64) -> f64 {
            self.through_value(x) + x * x
        }

        /// A pair, differentiated in `self` and `x`.
        #[differentiable(wrt(self, x))]
        pub fn pair(&self, x: &[f64]) -> (f64, f64) {
            (self.b * x[0] * x[1], self.w[1] * x[1].sin())
        }

        /// Differentiated in `self`, calling `pair` on a sub-slice.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn mixed(&self, x: &[f64]) -> f64 {
            let (a, c) = self.pair(&x[1..]);
            a.sin() + c * x[0]
        }

        /// `self` constant, calling `mixed`.
        #[differentiable(order = 2)]
        pub fn constant_caller(&self, x: &[f64]) -> f64 {
            self.mixed(x) * x[2]
        }
    }
}

/// Found by `autodiff-fuzz --structs --seed 31031` (program p61) while checking the fix above, and
/// failing on `main` too: a `[f64; 2]` field passed on whole to a callee of a slice a second time, after
/// another field, was rustc's E0308 in generated code (`add_struct` of the callee's `Vec` cotangent into
/// the field's array adjoint); the first pass converted it (`struct_cotangent`), the later ones did not.
pub mod fields_passed_twice {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct S {
        pub w: Vec<f64>,
        pub arr: [f64; 2],
    }

    #[differentiable(order = 2)]
    pub fn second(xs: &[f64], s: f64) -> f64 {
        xs[1] * s
    }

    /// `a1 s + a1 w1 s`: `arr` passed whole, then `w`, then `arr` again.
    #[differentiable(order = 2)]
    pub fn array_field_passed_twice(p: &S, s: f64) -> f64 {
        let c3 = second(&p.arr, s);
        let c4 = second(&p.w, s);
        second(&p.arr, c4) + c3
    }

    /// `a1² s³`, the field passed twice in one expression.
    #[differentiable(order = 2)]
    pub fn product_of_passes(p: &S, s: f64) -> f64 {
        second(&p.arr, s) * second(&p.arr, s * s)
    }
}

// ---------------------------------------------------------------------------------------------------
// Plain helpers of the checks (written here, no macro)
// ---------------------------------------------------------------------------------------------------

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The inverse of a small matrix by Gauss–Jordan with partial pivoting.
fn inverse(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut row = r.clone();
            row.extend((0..n).map(|j| if i == j { 1.0 } else { 0.0 }));
            row
        })
        .collect();
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i][k].abs().total_cmp(&m[j][k].abs()))
            .unwrap();
        m.swap(k, p);
        let d = m[k][k];
        for v in m[k].iter_mut() {
            *v /= d;
        }
        for i in 0..n {
            if i != k {
                let f = m[i][k];
                for j in 0..2 * n {
                    m[i][j] -= f * m[k][j];
                }
            }
        }
    }
    m.into_iter().map(|r| r[n..].to_vec()).collect()
}

fn rows(a: &[f64], n: usize) -> Vec<Vec<f64>> {
    a.chunks(n).map(|r| r.to_vec()).collect()
}

/// The gradient of `det A` in `A` (row-major): `det(A) A⁻ᵀ`, with the determinant by the inverse's
/// pivots computed independently here.
fn det_gradient(a: &[f64], n: usize, det: f64) -> Flat {
    let inv = inverse(&rows(a, n));
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            g[i * n + j] = det * inv[j][i];
        }
    }
    g
}

/// Samples a `n × n` matrix with a dominant diagonal (far from singular).
fn well_conditioned(n: usize) -> impl Fn(&mut Lcg) -> Flat {
    move |r| {
        let mut a = r.vec(n * n, -1.0, 1.0);
        for i in 0..n {
            a[i * n + i] += if i % 2 == 0 { 2.5 } else { -2.5 };
        }
        a
    }
}

// ---------------------------------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------------------------------

/// A probe and where to sample it.
type Entry<'a> = (Probe<'a>, Box<dyn Fn(&mut Lcg) -> Flat + 'a>);

fn run_all(entries: Vec<Entry<'_>>) {
    for (probe, sample) in entries {
        probe.run(5, sample);
    }
}

#[test]
fn stan_densities_and_reductions() {
    use stan::*;
    let entries: Vec<Entry> = vec![
        (
            two(
                "log_sum_exp2",
                log_sum_exp2,
                log_sum_exp2_grad,
                log_sum_exp2_jvp,
                log_sum_exp2_grad_into,
            )
            .hessian(hess2(log_sum_exp2_hessian))
            .analytic(|x| {
                let s = sigmoid(x[0] - x[1]);
                vec![s, 1.0 - s]
            }),
            Box::new(range(2, -3.0, 3.0)),
        ),
        (
            slice(
                "log_sum_exp",
                log_sum_exp,
                log_sum_exp_grad,
                log_sum_exp_jvp,
                log_sum_exp_grad_into,
            )
            .hessian(hess_slice(log_sum_exp_hessian))
            .analytic(|x| {
                let lse = x.iter().map(|v| v.exp()).sum::<f64>().ln();
                x.iter().map(|v| (v - lse).exp()).collect()
            }),
            Box::new(range(5, -4.0, 4.0)),
        ),
        (
            one(
                "log1p_exp",
                log1p_exp,
                log1p_exp_grad,
                log1p_exp_jvp,
                log1p_exp_grad_into,
            )
            .hessian(hess1(log1p_exp_hessian, log1p_exp_derivatives))
            .analytic(|x| vec![sigmoid(x[0])]),
            Box::new(range(1, -30.0, 30.0)),
        ),
        (
            Probe::new("normal_lpdf", |x| normal_lpdf(&x[..4], x[4], x[5]))
                .grad(|x| {
                    let (v, (gy, gm, gs)) = normal_lpdf_grad(&x[..4], x[4], x[5]);
                    (v, [gy, vec![gm, gs]].concat())
                })
                .jvp(|x, t| normal_lpdf_jvp(&x[..4], x[4], x[5], (t[..4].to_vec(), t[4], t[5])))
                .grad_into(|x| {
                    let (mut gy, mut gm, mut gs) = (vec![GARBAGE; 4], GARBAGE, GARBAGE);
                    let v = normal_lpdf_grad_into(&x[..4], x[4], x[5], (&mut gy, &mut gm, &mut gs));
                    (v, [gy, vec![gm, gs]].concat())
                })
                .hessian(|x| {
                    let (v, (gy, gm, gs), h) = normal_lpdf_hessian(&x[..4], x[4], x[5]);
                    (v, [gy, vec![gm, gs]].concat(), h)
                })
                .analytic(|x| {
                    let (mu, s) = (x[4], x[5]);
                    let z: Vec<f64> = x[..4].iter().map(|y| (y - mu) / s).collect();
                    let mut g: Vec<f64> = z.iter().map(|z| -z / s).collect();
                    g.push(z.iter().sum::<f64>() / s);
                    g.push(z.iter().map(|z| (z * z - 1.0) / s).sum());
                    g
                }),
            Box::new(|r: &mut Lcg| {
                let mut x = r.vec(5, -2.0, 2.0);
                x.push(r.uniform(0.5, 2.0));
                x
            }),
        ),
        (
            Probe::new("normal_lpdf_t", |x| normal_lpdf_t(&x[..3], x[3], x[4]))
                .grad(|x| {
                    let (v, (gy, gm, gs)) = normal_lpdf_t_grad(&x[..3], x[3], x[4]);
                    (v, [gy, vec![gm, gs]].concat())
                })
                .jvp(|x, t| normal_lpdf_t_jvp(&x[..3], x[3], x[4], (t[..3].to_vec(), t[3], t[4])))
                .hessian(|x| {
                    let (v, (gy, gm, gs), h) = normal_lpdf_t_hessian(&x[..3], x[3], x[4]);
                    (v, [gy, vec![gm, gs]].concat(), h)
                })
                .analytic(|x| {
                    let g = normal_lpdf_grad(&x[..3], x[3], x[4]).1;
                    [g.0, vec![g.1, g.2]].concat()
                }),
            Box::new(|r: &mut Lcg| {
                let mut x = r.vec(4, -2.0, 2.0);
                x.push(r.uniform(0.5, 2.0));
                x
            }),
        ),
        (
            one("lgamma", lgamma, lgamma_grad, lgamma_jvp, lgamma_grad_into)
                .hessian(hess1(lgamma_hessian, lgamma_derivatives)),
            Box::new(range(1, 0.7, 12.0)),
        ),
        (
            Probe::new("student_t_lpdf", |x| student_t_lpdf(x[0], x[1], x[2], x[3]))
                .grad(|x| {
                    let (v, g) = student_t_lpdf_grad(x[0], x[1], x[2], x[3]);
                    (v, vec![g.0, g.1, g.2, g.3])
                })
                .jvp(|x, t| student_t_lpdf_jvp(x[0], x[1], x[2], x[3], (t[0], t[1], t[2], t[3])))
                .hessian(|x| {
                    let (v, g, h) = student_t_lpdf_hessian(x[0], x[1], x[2], x[3]);
                    (v, vec![g.0, g.1, g.2, g.3], h)
                }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-3.0, 3.0),
                    r.uniform(1.5, 9.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.5, 2.0),
                ]
            }),
        ),
        (
            three(
                "logistic_lpdf",
                logistic_lpdf,
                logistic_lpdf_grad,
                logistic_lpdf_jvp,
                logistic_lpdf_grad_into,
            )
            .hessian(hess3(logistic_lpdf_hessian))
            .analytic(|x| {
                let (mu, s) = (x[1], x[2]);
                let z = (x[0] - mu) / s;
                let d = 1.0 - 2.0 * sigmoid(z);
                vec![d / s, -d / s, -d * z / s - 1.0 / s]
            }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-3.0, 3.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.4, 2.0),
                ]
            }),
        ),
        (
            Probe::new("cauchy_lpdf", |x| cauchy_lpdf(x[0], (x[1], x[2])))
                .grad(|x| {
                    let (v, (gy, (gm, gs))) = cauchy_lpdf_grad(x[0], (x[1], x[2]));
                    (v, vec![gy, gm, gs])
                })
                .jvp(|x, t| cauchy_lpdf_jvp(x[0], (x[1], x[2]), (t[0], (t[1], t[2]))))
                .grad_into(|x| {
                    let (mut a, mut bc) = (GARBAGE, (GARBAGE, GARBAGE));
                    let v = cauchy_lpdf_grad_into(x[0], (x[1], x[2]), (&mut a, &mut bc));
                    (v, vec![a, bc.0, bc.1])
                })
                .hessian(|x| {
                    let (v, (gy, (gm, gs)), h) = cauchy_lpdf_hessian(x[0], (x[1], x[2]));
                    (v, vec![gy, gm, gs], h)
                })
                .analytic(|x| {
                    let (mu, s) = (x[1], x[2]);
                    let z = (x[0] - mu) / s;
                    let d = -2.0 * z / (1.0 + z * z);
                    vec![d / s, -d / s, -1.0 / s - d * z / s]
                }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-3.0, 3.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.4, 2.0),
                ]
            }),
        ),
        (
            Probe::new("log_det_spd", |x| log_det_spd(&rows(x, 2)))
                .grad(|x| {
                    let (v, g) = log_det_spd_grad(&rows(x, 2));
                    (v, g.concat())
                })
                .jvp(|x, t| log_det_spd_jvp(&rows(x, 2), rows(t, 2)))
                .hessian(|x| {
                    let (v, g, h) = log_det_spd_hessian(&rows(x, 2));
                    (v, g.concat(), h)
                })
                .analytic(|x| {
                    // d ln det(X Xᵀ + I) / dX = 2 (X Xᵀ + I)⁻¹ X.
                    let xm = rows(x, 2);
                    let s: Vec<Vec<f64>> = (0..3)
                        .map(|i| {
                            (0..3)
                                .map(|j| f64::from(i == j) + dot(&xm[i], &xm[j]))
                                .collect()
                        })
                        .collect();
                    let inv = inverse(&s);
                    let mut g = vec![];
                    for i in 0..3 {
                        for k in 0..2 {
                            g.push(2.0 * (0..3).map(|j| inv[i][j] * xm[j][k]).sum::<f64>());
                        }
                    }
                    g
                }),
            Box::new(range(6, -1.5, 1.5)),
        ),
        (
            Probe::new("multi_normal_cholesky_lpdf", |x| {
                let (y, mu, l) = mvn_args(x);
                multi_normal_cholesky_lpdf(&y, &mu, &l)
            })
            .grad(|x| {
                let (y, mu, l) = mvn_args(x);
                let (v, (gy, gm, gl)) = multi_normal_cholesky_lpdf_grad(&y, &mu, &l);
                (v, [gy.to_vec(), gm.to_vec(), gl.concat()].concat())
            })
            .jvp(|x, t| {
                let (y, mu, l) = mvn_args(x);
                let (ty, tm, tl) = mvn_args(t);
                multi_normal_cholesky_lpdf_jvp(&y, &mu, &l, (ty, tm, tl))
            })
            .hessian(|x| {
                let (y, mu, l) = mvn_args(x);
                let (v, (gy, gm, gl), h) = multi_normal_cholesky_lpdf_hessian(&y, &mu, &l);
                (v, [gy.to_vec(), gm.to_vec(), gl.concat()].concat(), h)
            })
            .analytic(|x| {
                // d/dy = -Σ⁻¹ (y - mu) with Σ = L Lᵀ; d/dmu its negative; the entries of L by
                // central differences only.
                let (y, mu, l) = mvn_args(x);
                let s: Vec<Vec<f64>> = (0..3)
                    .map(|i| {
                        (0..3)
                            .map(|j| (0..3).map(|k| l[i][k] * l[j][k]).sum())
                            .collect()
                    })
                    .collect();
                let inv = inverse(&s);
                let d: Vec<f64> = (0..3).map(|i| y[i] - mu[i]).collect();
                let gy: Vec<f64> = (0..3).map(|i| -dot(&inv[i], &d)).collect();
                let gm: Vec<f64> = gy.iter().map(|v| -v).collect();
                let (_, (_, _, gl)) = multi_normal_cholesky_lpdf_grad(&y, &mu, &l);
                [gy, gm, gl.concat()].concat()
            }),
            Box::new(|r: &mut Lcg| {
                let mut x = r.vec(6, -1.5, 1.5);
                for i in 0..3 {
                    for j in 0..3 {
                        x.push(if j > i {
                            0.0
                        } else if j == i {
                            r.uniform(0.7, 1.8)
                        } else {
                            r.uniform(-0.8, 0.8)
                        });
                    }
                }
                x
            }),
        ),
    ];
    run_all(entries);
}

fn mvn_args(x: &[f64]) -> ([f64; 3], [f64; 3], [[f64; 3]; 3]) {
    let y = [x[0], x[1], x[2]];
    let mu = [x[3], x[4], x[5]];
    let mut l = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            l[i][j] = x[6 + 3 * i + j];
        }
    }
    (y, mu, l)
}

/// `lgamma` against its values and digamma at integers: `ln Γ(n) = ln (n-1)!`,
/// `ψ(n) = H(n-1) - γ`.
#[test]
fn stan_lgamma_against_factorials_and_digamma() {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    let mut fact = 1.0;
    let mut harmonic = 0.0;
    for n in 1..10 {
        if n > 1 {
            fact *= (n - 1) as f64;
            harmonic += 1.0 / (n - 1) as f64;
        }
        let (v, d) = stan::lgamma_grad(n as f64);
        common::assert_close(v, fact.ln(), 1e-13, "lgamma value");
        common::assert_close(d, harmonic - EULER_GAMMA, 1e-12, "digamma");
    }
    // ψ'(1) = π²/6.
    let (_, _, h) = stan::lgamma_hessian(1.0);
    common::assert_close(
        h[0][0],
        std::f64::consts::PI.powi(2) / 6.0,
        1e-11,
        "trigamma(1)",
    );
}

/// `log1p_exp`'s three derivatives by hand: `σ`, `σ(1-σ)`, `σ(1-σ)(1-2σ)`, on both branches.
#[test]
fn stan_log1p_exp_derivatives_by_hand() {
    for &a in &[-35.0, -3.2, -0.4, 0.6, 2.5, 40.0] {
        let d = stan::log1p_exp_derivatives(a);
        let s = sigmoid(a);
        let by_hand = [
            (1.0 + a.exp()).ln().max(a),
            s,
            s * (1.0 - s),
            s * (1.0 - s) * (1.0 - 2.0 * s),
        ];
        for k in 1..4 {
            common::assert_close(d[k], by_hand[k], 1e-12, &format!("log1p_exp^({k}) at {a}"));
        }
        common::assert_close(d[0], stan::log1p_exp(a), 0.0, "value");
    }
}

/// The `match` over families against each density called directly.
#[test]
fn stan_family_dispatch() {
    let mut r = Lcg::new(31);
    let y = r.vec(4, -2.0, 2.0);
    for family in 0..5 {
        for _ in 0..3 {
            let (mu, scale) = (r.uniform(-1.0, 1.0), r.uniform(0.5, 2.0));
            let (v, (gm, gs)) = stan::family_lpdf_grad(family, &y, mu, scale);
            let f = |p: &[f64]| stan::family_lpdf(family, &y, p[0], p[1]);
            assert_eq!(v, f(&[mu, scale]));
            common::assert_fd_gradient(f, &[mu, scale], &[gm, gs], "family_lpdf");
            // By hand, through each family's own gradient.
            let mut by_hand = (0.0, 0.0);
            for &v in &y {
                let (a, b) = match family {
                    0 => {
                        let (_, (_, a, b)) = stan::normal_lpdf_grad(&[v], mu, scale);
                        (a, b)
                    }
                    1 => {
                        let (_, (_, a, b)) = stan::logistic_lpdf_grad(v, mu, scale);
                        (a, b)
                    }
                    2 | 3 => {
                        let (_, (_, (a, b))) = stan::cauchy_lpdf_grad(v, (mu, scale));
                        (a, b)
                    }
                    _ => {
                        let (_, (_, _, a, b)) = stan::student_t_lpdf_grad(v, 4.0, mu, scale);
                        (a, b)
                    }
                };
                by_hand.0 += a;
                by_hand.1 += b;
            }
            common::assert_all_close(
                &[gm, gs],
                &[by_hand.0, by_hand.1],
                1e-12,
                "family_lpdf by family",
            );
            let (_, _, h) = stan::family_lpdf_hessian(family, &y, mu, scale);
            common::assert_hessian_fd(
                &h,
                |p| {
                    let g = stan::family_lpdf_grad(family, &y, p[0], p[1]).1;
                    vec![g.0, g.1]
                },
                &[mu, scale],
                1e-6,
                "family_lpdf",
            );
        }
    }
}

#[test]
fn stan_softmax_and_log_softmax() {
    check_vector(
        "softmax",
        5,
        range(4, -3.0, 3.0),
        &|x| stan::softmax(x),
        &|x, c| stan::softmax_vjp(x, c.to_vec()),
        &|x, t| stan::softmax_jvp(x, t.to_vec()),
        Some(&|x| stan::softmax_jacobian(x)),
    );
    check_vector(
        "log_softmax",
        5,
        range(4, -3.0, 3.0),
        &|x| stan::log_softmax(x),
        &|x, c| stan::log_softmax_vjp(x, c.to_vec()),
        &|x, t| stan::log_softmax_jvp(x, t.to_vec()),
        Some(&|x| stan::log_softmax_jacobian(x)),
    );
    // By hand: d softmax_i / d x_j = s_i (δij - s_j); d log_softmax_i / d x_j = δij - s_j.
    let x = [0.3, -1.2, 2.0, 0.1];
    let s = stan::softmax(&x);
    let j = stan::softmax_jacobian(&x);
    let lj = stan::log_softmax_jacobian(&x);
    for a in 0..4 {
        for b in 0..4 {
            let delta = f64::from(a == b);
            common::assert_close(j[a][b], s[a] * (delta - s[b]), 1e-14, "softmax J");
            common::assert_close(lj[a][b], delta - s[b], 1e-14, "log_softmax J");
        }
    }
}

#[test]
fn cppad_determinants_and_ode() {
    use cppad::*;
    let entries: Vec<Entry> = vec![
        (
            Probe::new("det_by_minor", |x| det_by_minor(x, 3))
                .grad(|x| det_by_minor_grad(x, 3))
                .jvp(|x, t| det_by_minor_jvp(x, 3, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 9];
                    let v = det_by_minor_grad_into(x, 3, &mut g);
                    (v, g)
                })
                .hessian(|x| det_by_minor_hessian(x, 3))
                .analytic(|x| det_gradient(x, 3, det_by_minor(x, 3))),
            Box::new(well_conditioned(3)),
        ),
        (
            Probe::new("det_by_minor4", |x| det_by_minor(x, 4))
                .grad(|x| det_by_minor_grad(x, 4))
                .jvp(|x, t| det_by_minor_jvp(x, 4, t.to_vec()))
                .hessian(|x| det_by_minor_hessian(x, 4))
                .analytic(|x| det_gradient(x, 4, det_by_minor(x, 4))),
            Box::new(well_conditioned(4)),
        ),
        (
            Probe::new("det_by_lu", |x| det_by_lu(x, 4))
                .grad(|x| det_by_lu_grad(x, 4))
                .jvp(|x, t| det_by_lu_jvp(x, 4, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 16];
                    let v = det_by_lu_grad_into(x, 4, &mut g);
                    (v, g)
                })
                .hessian(|x| det_by_lu_hessian(x, 4))
                .analytic(|x| det_gradient(x, 4, det_by_minor(x, 4))),
            Box::new(well_conditioned(4)),
        ),
        (
            // The rows of a diagonally dominant matrix reversed: every step pivots.
            Probe::new("det_by_lu_pivoting", |x| det_by_lu(x, 4))
                .grad(|x| det_by_lu_grad(x, 4))
                .jvp(|x, t| det_by_lu_jvp(x, 4, t.to_vec()))
                .hessian(|x| det_by_lu_hessian(x, 4))
                .analytic(|x| det_gradient(x, 4, det_by_minor(x, 4))),
            Box::new(|r: &mut Lcg| {
                let a = well_conditioned(4)(r);
                a.chunks(4).rev().flatten().copied().collect()
            }),
        ),
        (
            Probe::new("ode_taylor", |x| ode_taylor(&x[..4], x[4]))
                .grad(|x| {
                    let (v, (g, gt)) = ode_taylor_grad(&x[..4], x[4]);
                    (v, [g, vec![gt]].concat())
                })
                .jvp(|x, t| ode_taylor_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
                .hessian(|x| {
                    let (v, (g, gt), h) = ode_taylor_hessian(&x[..4], x[4]);
                    (v, [g, vec![gt]].concat(), h)
                })
                .analytic(|x| {
                    // y_i(t) = (x_0 ... x_i) t^(i+1) / (i+1)!
                    let t = x[4];
                    let mut g = vec![0.0; 5];
                    let mut fact = 1.0;
                    for i in 0..4 {
                        fact *= (i + 1) as f64;
                        let tp = t.powi(i as i32 + 1) / fact;
                        let p: f64 = x[..=i].iter().product();
                        for j in 0..=i {
                            let others: f64 = (0..=i).filter(|&k| k != j).map(|k| x[k]).product();
                            g[j] += others * tp;
                        }
                        g[4] += p * t.powi(i as i32) / (fact / (i + 1) as f64);
                    }
                    g
                }),
            Box::new(range(5, -1.5, 1.5)),
        ),
        (
            Probe::new("poly_all", |x| poly_all(&x[..5], x[5]))
                .grad(|x| {
                    let (v, (g, gz)) = poly_all_grad(&x[..5], x[5]);
                    (v, [g, vec![gz]].concat())
                })
                .jvp(|x, t| poly_all_jvp(&x[..5], x[5], (t[..5].to_vec(), t[5])))
                .hessian(|x| {
                    let (v, (g, gz), h) = poly_all_hessian(&x[..5], x[5]);
                    (v, [g, vec![gz]].concat(), h)
                })
                .analytic(|x| {
                    let z = x[5];
                    let mut g: Vec<f64> = (0..5).map(|i| z.powi(i)).collect();
                    g.push((1..5).map(|i| i as f64 * x[i] * z.powi(i as i32 - 1)).sum());
                    g
                }),
            Box::new(range(6, -1.5, 1.5)),
        ),
        (
            Probe::new("sparse_hes_fun", |x| sparse_hes_fun(x, &ROW, &COL))
                .grad(|x| sparse_hes_fun_grad(x, &ROW, &COL))
                .jvp(|x, t| sparse_hes_fun_jvp(x, &ROW, &COL, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 5];
                    let v = sparse_hes_fun_grad_into(x, &ROW, &COL, &mut g);
                    (v, g)
                })
                .hessian(|x| {
                    let (v, g, h) = sparse_hes_fun_hessian(x, &ROW, &COL);
                    // By hand: each term e^{x_r} x_c adds e^{x_r} x_c to H[r][r] and e^{x_r} to
                    // H[r][c] and H[c][r] (2 e^{x_r} where r == c, plus e^{x_r} x_r on the diagonal).
                    let mut by_hand = vec![vec![0.0; 5]; 5];
                    for k in 0..ROW.len() {
                        let (r, c) = (ROW[k], COL[k]);
                        let e = x[r].exp();
                        by_hand[r][r] += e * x[c];
                        by_hand[r][c] += e;
                        by_hand[c][r] += e;
                    }
                    for i in 0..5 {
                        common::assert_all_close(&h[i], &by_hand[i], 1e-12, "sparse Hessian");
                    }
                    (v, g, h)
                })
                .analytic(|x| {
                    let mut g = vec![0.0; 5];
                    for k in 0..ROW.len() {
                        let (r, c) = (ROW[k], COL[k]);
                        g[r] += x[r].exp() * x[c];
                        g[c] += x[r].exp();
                    }
                    g
                }),
            Box::new(range(5, -1.5, 1.5)),
        ),
        (
            Probe::new("euler", |x| euler(&x[..3], x[3], 7))
                .grad(|x| {
                    let (v, (g, gt)) = euler_grad(&x[..3], x[3], 7);
                    (v, [g, vec![gt]].concat())
                })
                .jvp(|x, t| euler_jvp(&x[..3], x[3], 7, (t[..3].to_vec(), t[3])))
                .hessian(|x| {
                    let (v, (g, gt), h) = euler_hessian(&x[..3], x[3], 7);
                    (v, [g, vec![gt]].concat(), h)
                }),
            Box::new(range(4, -1.5, 1.5)),
        ),
    ];
    run_all(entries);
}

const ROW: [usize; 7] = [0, 1, 2, 3, 4, 2, 1];
const COL: [usize; 7] = [0, 2, 2, 1, 3, 4, 0];

/// Euler's steps of the triangular system against the same steps written by hand.
#[test]
fn cppad_euler_by_hand() {
    let mut r = Lcg::new(77);
    for _ in 0..4 {
        let x = r.vec(3, -1.0, 1.0);
        let t = r.uniform(0.2, 1.5);
        let steps = 6;
        let h = t / steps as f64;
        // y0 = k h x0; y1 += h x1 y0; y2 += h x2 y1 (old values): by the explicit recursion.
        let mut y = [0.0; 3];
        for _ in 0..steps {
            let d = [x[0], x[1] * y[0], x[2] * y[1]];
            for i in 0..3 {
                y[i] += h * d[i];
            }
        }
        assert_eq!(cppad::euler(&x, t, steps), y[2]);
        // y2 is linear in x2: its derivative there is y2 / x2.
        let (_, (g, _)) = cppad::euler_grad(&x, t, steps);
        common::assert_close(g[2], y[2] / x[2], 1e-12, "d y2 / d x2");
    }
}

/// CppAD's `poly` speed test takes the second derivative in `z`: `f_derivatives` against the
/// derivatives of the polynomial by hand.
#[test]
fn cppad_poly_derivatives_in_z() {
    let a = [0.5, -1.25, 2.0, 0.75, -0.3];
    for &z in &[-1.3, -0.2, 0.4, 1.7] {
        let d = cppad::poly_derivatives(&a, z);
        let by_hand = |k: usize| -> f64 {
            (k..5)
                .map(|i| {
                    let falling: f64 = (0..k).map(|m| (i - m) as f64).product();
                    falling * a[i] * z.powi((i - k) as i32)
                })
                .sum()
        };
        for k in 0..4 {
            common::assert_close(d[k], by_hand(k), 1e-12, &format!("poly^({k}) at {z}"));
        }
        let (_, gz, h) = cppad::poly_hessian(&a, z);
        common::assert_close(gz, d[1], 1e-14, "poly_hessian gradient");
        common::assert_close(h[0][0], d[2], 1e-14, "poly_hessian");
    }
}

#[test]
fn cppad_sparse_jacobian() {
    check_vector(
        "sparse_jac_fun",
        5,
        range(5, -1.5, 1.5),
        &|x| cppad::sparse_jac_fun(x, &ROW, &COL),
        &|x, c| cppad::sparse_jac_fun_vjp(x, &ROW, &COL, c.to_vec()),
        &|x, t| cppad::sparse_jac_fun_jvp(x, &ROW, &COL, t.to_vec()),
        Some(&|x| cppad::sparse_jac_fun_jacobian(x, &ROW, &COL)),
    );
    // By hand: row k has x_c² at r and 2 x_r x_c at c.
    let x = [0.4, -1.1, 0.7, 1.3, -0.6];
    let j = cppad::sparse_jac_fun_jacobian(&x, &ROW, &COL);
    for k in 0..ROW.len() {
        let (r, c) = (ROW[k], COL[k]);
        let mut row = vec![0.0; 5];
        row[r] += x[c] * x[c];
        row[c] += 2.0 * x[r] * x[c];
        common::assert_all_close(&j[k], &row, 1e-14, "sparse Jacobian");
    }
}

#[test]
fn ceres_jets() {
    use ceres::*;
    let positive2 = |r: &mut Lcg| vec![r.uniform(0.3, 2.5), r.uniform(0.3, 2.5)];
    let entries: Vec<Entry> = vec![
        (
            two(
                "atan2_patterns",
                atan2_patterns,
                atan2_patterns_grad,
                atan2_patterns_jvp,
                atan2_patterns_grad_into,
            )
            .hessian(hess2(atan2_patterns_hessian))
            .analytic(|p| {
                let (y, x) = (p[0], p[1]);
                let r2 = x * x + y * y;
                vec![x / r2 + 2.0 / (4.0 + y * y), -y / r2 - 0.5 / (x * x + 0.25)]
            }),
            Box::new(range(2, -2.0, 2.0)),
        ),
        (
            two(
                "hypot_patterns",
                hypot_patterns,
                hypot_patterns_grad,
                hypot_patterns_jvp,
                hypot_patterns_grad_into,
            )
            .hessian(hess2(hypot_patterns_hessian))
            .analytic(|p| {
                let (x, y) = (p[0], p[1]);
                let h = x.hypot(y);
                vec![x / h + x / x.hypot(3.0), y / h + y / 2.0_f64.hypot(y)]
            }),
            Box::new(range(2, -2.0, 2.0)),
        ),
        (
            two(
                "pow_patterns",
                pow_patterns,
                pow_patterns_grad,
                pow_patterns_jvp,
                pow_patterns_grad_into,
            )
            .hessian(hess2(pow_patterns_hessian))
            .analytic(|p| {
                let (x, y) = (p[0], p[1]);
                vec![
                    y * x.powf(y - 1.0) + 2.5 * x.powf(1.5) + 3.0 * x * x
                        - 0.5 * x.powf(-1.5)
                        - 2.0 * x.powi(-3),
                    x.ln() * x.powf(y) + 1.7_f64.ln() * 1.7_f64.powf(y),
                ]
            }),
            Box::new(positive2),
        ),
        (
            two(
                "fmin_fmax",
                fmin_fmax,
                fmin_fmax_grad,
                fmin_fmax_jvp,
                fmin_fmax_grad_into,
            )
            .hessian(hess2(fmin_fmax_hessian))
            .analytic(|p| {
                let (x, y) = (p[0], p[1]);
                let (mut gx, mut gy) = (0.0, 0.0);
                if x > y {
                    gx += 2.0;
                    gy += 2.0 * y;
                } else {
                    gy += 2.0 + x;
                    gx += y;
                }
                if x < 0.3 {
                    gx += 1.0;
                }
                if y > -0.2 {
                    gy -= 1.0;
                }
                vec![gx, gy]
            }),
            Box::new(|r: &mut Lcg| loop {
                let (x, y) = (r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5));
                if (x - y).abs() > 0.05 && (x - 0.3).abs() > 0.05 && (y + 0.2).abs() > 0.05 {
                    break vec![x, y];
                }
            }),
        ),
        (
            two(
                "copysign_patterns",
                copysign_patterns,
                copysign_patterns_grad,
                copysign_patterns_jvp,
                copysign_patterns_grad_into,
            )
            .hessian(hess2(copysign_patterns_hessian))
            .analytic(|p| {
                let (x, y) = (p[0], p[1]);
                let (sx, sy) = (x.signum(), y.signum());
                // |x y| with a negative sign: -|x y|.
                let sxy = (x * y).signum();
                vec![sx * sy + 2.0 * sx - sxy * y, -sxy * x]
            }),
            Box::new(common::probe::away_from(2, -2.0, 2.0, 10.0, 0.0)),
        ),
        (
            two(
                "cbrt_patterns",
                cbrt_patterns,
                cbrt_patterns_grad,
                cbrt_patterns_jvp,
                cbrt_patterns_grad_into,
            )
            .hessian(hess2(cbrt_patterns_hessian))
            .analytic(|p| {
                let (x, y) = (p[0], p[1]);
                let c = (x * y).cbrt();
                vec![
                    y / (3.0 * x.cbrt().powi(2)) + c / (3.0 * x),
                    x.cbrt() + c / (3.0 * y),
                ]
            }),
            Box::new(common::probe::away_from(2, -2.0, 2.0, 10.0, 0.0)),
        ),
        (
            Probe::new("elementary", |x| elementary([x[0], x[1], x[2]]))
                .grad(|x| {
                    let (v, g) = elementary_grad([x[0], x[1], x[2]]);
                    (v, g.to_vec())
                })
                .jvp(|x, t| elementary_jvp([x[0], x[1], x[2]], [t[0], t[1], t[2]]))
                .grad_into(|x| {
                    let mut g = [GARBAGE; 3];
                    let v = elementary_grad_into([x[0], x[1], x[2]], &mut g);
                    (v, g.to_vec())
                })
                .hessian(|x| {
                    let (v, g, h) = elementary_hessian([x[0], x[1], x[2]]);
                    (v, g.to_vec(), h)
                })
                .analytic(|x| {
                    let (a, b, c) = (x[0], x[1], x[2]);
                    let ln2 = std::f64::consts::LN_2;
                    vec![
                        b + ln2 * a.exp2() + c.sinh() * a.sinh() + a.exp(),
                        a + 1.0 / (b * std::f64::consts::LN_10) + 1.0 / (b * ln2),
                        1.0 + c.cosh() * a.cosh() - 1.0 / c.cosh().powi(2),
                    ]
                }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-1.5, 1.5),
                    r.uniform(0.2, 3.0),
                    r.uniform(-1.5, 1.5),
                ]
            }),
        ),
        (
            one("erf", erf, erf_grad, erf_jvp, erf_grad_into)
                .hessian(hess1(erf_hessian, erf_derivatives))
                .analytic(|x| vec![2.0 / std::f64::consts::PI.sqrt() * (-x[0] * x[0]).exp()]),
            Box::new(range(1, -2.0, 2.0)),
        ),
    ];
    run_all(entries);
}

/// `pow` at a zero base, Ceres' `pow(0, y)` cases, against docs/conventions.md: the slope in `x` is
/// `y x^(y-1)` (0 for `y > 1`, 1 for `y = 1`), the slope in `y` is 0 at `x = 0`.
#[test]
fn ceres_pow_at_zero_base() {
    for &(y, dx) in &[(2.5, 0.0), (1.0, 1.0), (3.0, 0.0)] {
        let (v, (gx, gy)) = ceres::pow_base_grad(0.0, y);
        assert_eq!(v, 0.0);
        assert_eq!((gx, gy), (dx, 0.0), "pow(0, {y})");
        let (_, d) = ceres::pow_base_jvp(0.0, y, (1.0, 1.0));
        assert_eq!(d, dx, "pow(0, {y}) forward");
    }
    // Near zero the slope in x is y x^(y-1), continuous into the value at 0 for y > 1.
    let (_, (gx, _)) = ceres::pow_base_grad(1e-8, 2.5);
    common::assert_close(gx, 2.5 * 1e-8_f64.powf(1.5), 1e-12, "pow near 0");
}

/// `erf` by its series against the closed forms of its derivatives, and its value against known
/// ones (`erf(1) = 0.8427007929497149`, `erf(0.5) = 0.5204998778130465`).
#[test]
fn ceres_erf_by_hand() {
    common::assert_close(ceres::erf(1.0), 0.842_700_792_949_714_9, 1e-15, "erf(1)");
    common::assert_close(ceres::erf(0.5), 0.520_499_877_813_046_5, 1e-15, "erf(0.5)");
    for &x in &[-1.7, -0.3, 0.0, 0.8, 1.9] {
        let d = ceres::erf_derivatives(x);
        let g = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        common::assert_close(d[1], g, 1e-13, "erf'");
        common::assert_close(d[2], -2.0 * x * g, 1e-12, "erf''");
        common::assert_close(d[3], (4.0 * x * x - 2.0) * g, 1e-12, "erf'''");
    }
}

#[test]
fn adolc_examples() {
    use adolc::*;
    let helm = |r: &mut Lcg| {
        // Mole fractions small enough that bᵀx < 1.
        r.vec(4, 0.1, 0.9)
    };
    let h = Helm {
        b: vec![0.2, 0.15, 0.3, 0.1],
        rt: 1.3,
        a: vec![
            1.0, 0.2, 0.1, 0.0, 0.2, 1.5, 0.3, 0.1, 0.1, 0.3, 0.8, 0.2, 0.0, 0.1, 0.2, 1.2,
        ],
    };
    let entries: Vec<Entry> = vec![
        (
            slice(
                "speelpenning",
                speelpenning::<f64>,
                speelpenning_grad::<f64>,
                speelpenning_jvp::<f64>,
                speelpenning_grad_into::<f64>,
            )
            .hessian(hess_slice(speelpenning_hessian::<f64>))
            .analytic(|x| {
                (0..x.len())
                    .map(|i| (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product())
                    .collect()
            }),
            Box::new(range(6, -1.5, 1.5)),
        ),
        (
            Probe::new("helm_energy_x", |x| h.energy_x(x))
                .grad(|x| h.energy_x_grad(x))
                .jvp(|x, t| h.energy_x_jvp(x, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = h.energy_x_grad_into(x, &mut g);
                    (v, g)
                })
                .hessian(|x| h.energy_x_hessian(x)),
            Box::new(helm),
        ),
        (
            // self and x together: b (4), rt, then x (4).
            Probe::new("helm_energy", |p| helm_at(&h, p).energy(&p[5..]))
                .grad(|p| {
                    let (v, (gs, gx)) = helm_at(&h, p).energy_grad(&p[5..]);
                    (v, [gs.b, vec![gs.rt], gx].concat())
                })
                .jvp(|p, t| {
                    let tangent = Helm {
                        b: t[..4].to_vec(),
                        rt: t[4],
                        a: h.a.clone(),
                    };
                    helm_at(&h, p).energy_jvp(&p[5..], (tangent, t[5..].to_vec()))
                })
                .hessian(|p| {
                    let (v, (gs, gx), hm) = helm_at(&h, p).energy_hessian(&p[5..]);
                    (v, [gs.b, vec![gs.rt], gx].concat(), hm)
                }),
            Box::new(|r: &mut Lcg| {
                let mut p = r.vec(4, 0.05, 0.3);
                p.push(r.uniform(0.5, 2.0));
                p.extend(r.vec(4, 0.1, 0.7));
                p
            }),
        ),
    ];
    run_all(entries);
}

fn helm_at(h: &adolc::Helm, p: &[f64]) -> adolc::Helm {
    adolc::Helm {
        b: p[..4].to_vec(),
        rt: p[4],
        a: h.a.clone(),
    }
}

/// The Helmholtz energy's `x`-gradient by hand: `RT (ln(x_i/(1-β)) + 1 + b_i Σx/(1-β))` for the
/// entropy part and the quotient rule on the attraction part, `β = bᵀx`, `α = xᵀAx`.
#[test]
fn adolc_helm_by_hand() {
    let h = adolc::Helm {
        b: vec![0.2, 0.15, 0.3, 0.1],
        rt: 1.3,
        a: vec![
            1.0, 0.2, 0.1, 0.0, 0.2, 1.5, 0.3, 0.1, 0.1, 0.3, 0.8, 0.2, 0.0, 0.1, 0.2, 1.2,
        ],
    };
    let mut r = Lcg::new(5);
    for _ in 0..4 {
        let x = r.vec(4, 0.1, 0.9);
        let beta: f64 = (0..4).map(|i| h.b[i] * x[i]).sum();
        let ax: Vec<f64> = (0..4)
            .map(|i| (0..4).map(|j| h.a[i * 4 + j] * x[j]).sum())
            .collect();
        let alpha = dot(&x, &ax);
        let sx: f64 = x.iter().sum();
        let r2 = std::f64::consts::SQRT_2;
        let (p, q) = (1.0 + (1.0 + r2) * beta, 1.0 + (1.0 - r2) * beta);
        let lt = (p / q).ln();
        let dlt = (1.0 + r2) / p - (1.0 - r2) / q;
        let s8 = 8.0_f64.sqrt();
        let by_hand: Vec<f64> = (0..4)
            .map(|i| {
                let entropy =
                    h.rt * ((x[i] / (1.0 - beta)).ln() + 1.0 + h.b[i] * sx / (1.0 - beta));
                // A is symmetric: dα/dx_i = 2 (Ax)_i.
                let da = 2.0 * ax[i];
                let attraction = (da * lt + alpha * dlt * h.b[i]) / (s8 * beta)
                    - alpha * lt * h.b[i] / (s8 * beta * beta);
                entropy - attraction
            })
            .collect();
        let (_, g) = h.energy_x_grad(&x);
        common::assert_all_close(&g, &by_hand, 1e-11, "helm gradient by hand");
    }
}

/// ADOL-C's `speelpenning.cpp` in `f32`: the gradient against the products by hand, `_jvp` against it,
/// the Hessian `∏_{k≠i,j} x_k` off the diagonal.
#[test]
fn adolc_speelpenning_f32_and_dual() {
    use autodiff::Dual;
    let x: Vec<f32> = vec![0.9, -1.1, 1.3, 0.7, -0.8];
    let (v, g) = adolc::speelpenning_f32_grad(&x);
    assert_eq!(v, adolc::speelpenning_f32(&x));
    let (_, _, h) = adolc::speelpenning_f32_hessian(&x);
    for i in 0..5 {
        let others: f64 = (0..5)
            .filter(|&j| j != i)
            .map(|j| f64::from(x[j]))
            .product();
        common::assert_close(f64::from(g[i]), others, 1e-5, "f32 gradient");
        for j in 0..5 {
            let by_hand: f64 = if i == j {
                0.0
            } else {
                (0..5)
                    .filter(|&k| k != i && k != j)
                    .map(|k| f64::from(x[k]))
                    .product()
            };
            common::assert_close(f64::from(h[i][j]), by_hand, 1e-5, "f32 Hessian");
        }
    }
    let t: Vec<f32> = vec![0.5, -0.25, 1.0, 0.75, -1.0];
    let (jv, d) = adolc::speelpenning_f32_jvp(&x, t.clone());
    assert_eq!(jv, v);
    let expected: f32 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    common::assert_close(f64::from(d), f64::from(expected), 1e-5, "f32 jvp");
    // The generic one run on dual numbers: the tangent is the directional derivative.
    let xd: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    let duals: Vec<Dual<f64>> = xd
        .iter()
        .zip(&t)
        .map(|(&a, &b)| Dual::new(a, f64::from(b)))
        .collect();
    let p = adolc::speelpenning(&duals);
    let (_, gd) = adolc::speelpenning_grad(&xd);
    let td: Vec<f64> = t.iter().map(|&v| f64::from(v)).collect();
    common::assert_close(p.eps, dot(&gd, &td), 1e-13, "Dual tangent");
    // And its gradient evaluated on duals: the Hessian times the tangent in the eps parts.
    let (_, gdual) = adolc::speelpenning_grad(&duals);
    let (_, _, hv) = adolc::speelpenning_hvp(&xd, td.clone());
    for i in 0..5 {
        common::assert_close(gdual[i].eps, hv[i], 1e-13, "grad on Dual = hvp");
    }
}

#[test]
fn adolc_gauss_and_lighthouse() {
    let n = 3;
    let sample = |r: &mut Lcg| {
        let mut a = well_conditioned(n)(r);
        a.extend(r.vec(n, -2.0, 2.0));
        a
    };
    let split = |x: &[f64]| (rows(&x[..n * n], n), x[n * n..].to_vec());
    check_vector(
        "gauss_solve",
        5,
        sample,
        &|x| {
            let (a, b) = split(x);
            adolc::gauss_solve(&a, &b)
        },
        &|x, c| {
            let (a, b) = split(x);
            let (v, (ga, gb)) = adolc::gauss_solve_vjp(&a, &b, c.to_vec());
            (v, [ga.concat(), gb].concat())
        },
        &|x, t| {
            let (a, b) = split(x);
            let (ta, tb) = split(t);
            adolc::gauss_solve_jvp(&a, &b, (ta, tb))
        },
        Some(&|x| {
            let (a, b) = split(x);
            adolc::gauss_solve_jacobian(&a, &b)
        }),
    );
    // By hand: x = A⁻¹ b, dx/db = A⁻¹, dx/dA_kl = -A⁻¹_ik x_l.
    let mut r = Lcg::new(9);
    let x = sample(&mut r);
    let (a, b) = split(&x);
    let inv = inverse(&a);
    let sol = adolc::gauss_solve(&a, &b);
    let j = adolc::gauss_solve_jacobian(&a, &b);
    for i in 0..n {
        common::assert_all_close(&j[i][n * n..], &inv[i], 1e-12, "dx/db");
        for k in 0..n {
            for l in 0..n {
                common::assert_close(j[i][k * n + l], -inv[i][k] * sol[l], 1e-12, "dx/dA");
            }
        }
    }

    check_vector(
        "lighthouse",
        5,
        |r: &mut Lcg| {
            vec![
                r.uniform(0.5, 2.0),
                r.uniform(1.5, 3.0),
                r.uniform(0.1, 0.4),
                r.uniform(0.2, 2.0),
            ]
        },
        &|x| adolc::lighthouse([x[0], x[1], x[2], x[3]]).to_vec(),
        &|x, c| {
            let (v, g) = adolc::lighthouse_vjp([x[0], x[1], x[2], x[3]], [c[0], c[1]]);
            (v.to_vec(), g.to_vec())
        },
        &|x, t| {
            let (v, d) = adolc::lighthouse_jvp([x[0], x[1], x[2], x[3]], [t[0], t[1], t[2], t[3]]);
            (v.to_vec(), d.to_vec())
        },
        Some(&|x| adolc::lighthouse_jacobian([x[0], x[1], x[2], x[3]])),
    );
    // By hand: with τ = tan(ωt), y1 = ν τ / (γ - τ), dy1/dν = τ/(γ-τ), dy1/dγ = -ν τ/(γ-τ)²,
    // dy1/dτ = ν γ/(γ-τ)², dτ/dω = t sec², dτ/dt = ω sec².
    let (nu, gamma, omega, t): (f64, f64, f64, f64) = (1.1, 2.2, 0.3, 1.4);
    let tau = (omega * t).tan();
    let sec2 = 1.0 + tau * tau;
    let d = gamma - tau;
    let row1 = [
        tau / d,
        -nu * tau / (d * d),
        nu * gamma / (d * d) * t * sec2,
        nu * gamma / (d * d) * omega * sec2,
    ];
    let y1 = nu * tau / d;
    let row2 = [
        gamma * row1[0],
        y1 + gamma * row1[1],
        gamma * row1[2],
        gamma * row1[3],
    ];
    let j = adolc::lighthouse_jacobian([nu, gamma, omega, t]);
    common::assert_all_close(&j[0], &row1, 1e-13, "lighthouse row 1");
    common::assert_all_close(&j[1], &row2, 1e-13, "lighthouse row 2");
}

#[test]
fn tapenade_fixed_points() {
    use tapenade::*;
    let w = [0.5, -1.25, 2.0, 0.75];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("fixed_point_sum", move |x| fixed_point_sum(x, &w))
                .grad(move |x| fixed_point_sum_grad(x, &w))
                .jvp(move |x, t| fixed_point_sum_jvp(x, &w, t.to_vec()))
                .grad_into(move |x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = fixed_point_sum_grad_into(x, &w, &mut g);
                    (v, g)
                })
                .hessian(move |x| fixed_point_sum_hessian(x, &w))
                .analytic(move |x| {
                    // z = x + cos(z)/2: dz/dx = 1 / (1 + sin(z)/2).
                    (0..4)
                        .map(|i| {
                            let mut z = 0.0;
                            for _ in 0..200 {
                                z = x[i] + 0.5 * f64::cos(z);
                            }
                            w[i] / (1.0 + 0.5 * z.sin())
                        })
                        .collect()
                }),
            Box::new(range(4, -2.0, 2.0)),
        ),
        (
            one(
                "babylonian",
                babylonian,
                babylonian_grad,
                babylonian_jvp,
                babylonian_grad_into,
            )
            .hessian(hess1(babylonian_hessian, babylonian_derivatives))
            .analytic(|x| vec![0.5 / x[0].sqrt()]),
            Box::new(range(1, 0.05, 30.0)),
        ),
    ];
    run_all(entries);
}

#[test]
fn second_round_scalars() {
    use more::*;
    let entries: Vec<Entry> = vec![
        (
            three(
                "log_mix",
                log_mix,
                log_mix_grad,
                log_mix_jvp,
                log_mix_grad_into,
            )
            .hessian(hess3(log_mix_hessian))
            .analytic(|p| {
                let (t, l1, l2) = (p[0], p[1], p[2]);
                let mix = t * l1.exp() + (1.0 - t) * l2.exp();
                vec![
                    (l1.exp() - l2.exp()) / mix,
                    t * l1.exp() / mix,
                    (1.0 - t) * l2.exp() / mix,
                ]
            }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(0.05, 0.95),
                    r.uniform(-3.0, 1.0),
                    r.uniform(-3.0, 1.0),
                ]
            }),
        ),
        (
            three(
                "gamma_lpdf",
                gamma_lpdf,
                gamma_lpdf_grad,
                gamma_lpdf_jvp,
                gamma_lpdf_grad_into,
            )
            .hessian(hess3(gamma_lpdf_hessian))
            .analytic(|p| {
                let (y, a, b) = (p[0], p[1], p[2]);
                // ψ(α) from lgamma's derivative, checked against H(n-1) - γ above.
                let digamma = stan::lgamma_grad(a).1;
                vec![(a - 1.0) / y - b, b.ln() - digamma + y.ln(), a / b - y]
            }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(0.2, 4.0),
                    r.uniform(0.8, 6.0),
                    r.uniform(0.3, 3.0),
                ]
            }),
        ),
        (
            two("lbeta", lbeta, lbeta_grad, lbeta_jvp, lbeta_grad_into)
                .hessian(hess2(lbeta_hessian))
                .analytic(|p| {
                    let psi = |v: f64| stan::lgamma_grad(v).1;
                    let both = psi(p[0] + p[1]);
                    vec![psi(p[0]) - both, psi(p[1]) - both]
                }),
            Box::new(|r: &mut Lcg| vec![r.uniform(0.7, 6.0), r.uniform(0.7, 6.0)]),
        ),
        (
            one(
                "std_normal_lcdf",
                std_normal_lcdf,
                std_normal_lcdf_grad,
                std_normal_lcdf_jvp,
                std_normal_lcdf_grad_into,
            )
            .hessian(hess1(std_normal_lcdf_hessian, std_normal_lcdf_derivatives))
            .analytic(|p| {
                let x = p[0];
                let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
                vec![pdf / (0.5 * (1.0 + ceres::erf(x / std::f64::consts::SQRT_2)))]
            }),
            Box::new(range(1, -2.5, 2.5)),
        ),
        (
            Probe::new("det_minor_t", |x| det_minor_t(x, 4))
                .grad(|x| det_minor_t_grad(x, 4))
                .jvp(|x, t| det_minor_t_jvp(x, 4, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 16];
                    let v = det_minor_t_grad_into(x, 4, &mut g);
                    (v, g)
                })
                .hessian(|x| det_minor_t_hessian(x, 4))
                .analytic(|x| det_gradient(x, 4, cppad::det_by_minor(x, 4))),
            Box::new(well_conditioned(4)),
        ),
        (
            Probe::new("polar_angle", |x| polar_angle([x[0], x[1]]))
                .grad(|x| {
                    let (v, g) = polar_angle_grad([x[0], x[1]]);
                    (v, g.to_vec())
                })
                .jvp(|x, t| polar_angle_jvp([x[0], x[1]], [t[0], t[1]]))
                .hessian(|x| {
                    let (v, g, h) = polar_angle_hessian([x[0], x[1]]);
                    (v, g.to_vec(), h)
                })
                .analytic(|p| {
                    let (x, y) = (p[0], p[1]);
                    let (r, th) = (x.hypot(y), y.atan2(x));
                    // d(θ r) = r dθ + θ dr, dθ = (-y, x)/r², dr = (x, y)/r.
                    vec![-y / r + th * x / r, x / r + th * y / r]
                }),
            Box::new(common::probe::away_from(2, -2.0, 2.0, 10.0, 0.0)),
        ),
        (
            one(
                "inverse_identities",
                inverse_identities,
                inverse_identities_grad,
                inverse_identities_jvp,
                inverse_identities_grad_into,
            )
            .hessian(hess1(
                inverse_identities_hessian,
                inverse_identities_derivatives,
            ))
            .analytic(|_| vec![10.0]),
            Box::new(range(1, 0.1, 0.9)),
        ),
        (
            Probe::new("pow_by_squaring", |x| pow_by_squaring(x[0], 13))
                .grad(|x| {
                    let (v, g) = pow_by_squaring_grad(x[0], 13);
                    (v, vec![g])
                })
                .jvp(|x, t| pow_by_squaring_jvp(x[0], 13, t[0]))
                .hessian(|x| {
                    let (v, g, h) = pow_by_squaring_hessian(x[0], 13);
                    (v, vec![g], h)
                })
                .analytic(|x| vec![13.0 * x[0].powi(12)]),
            Box::new(range(1, -1.3, 1.3)),
        ),
        (
            two("kepler", kepler, kepler_grad, kepler_jvp, kepler_grad_into)
                .hessian(hess2(kepler_hessian))
                .analytic(|p| {
                    // E - e sin E = M: dE/dM = 1/(1 - e cos E), dE/de = sin E/(1 - e cos E).
                    let big_e = kepler(p[0], p[1]);
                    let d = 1.0 - p[1] * big_e.cos();
                    vec![1.0 / d, big_e.sin() / d]
                }),
            Box::new(|r: &mut Lcg| vec![r.uniform(-3.0, 3.0), r.uniform(0.0, 0.6)]),
        ),
    ];
    run_all(entries);
}

/// `inverse_identities`' derivatives are exactly those of `10 x`; `pow_by_squaring`'s those of `x^n`
/// for every `n` up to 16, to the third.
#[test]
fn second_round_derivatives_by_hand() {
    for &x in &[0.15, 0.4, 0.55, 0.85] {
        let d = more::inverse_identities_derivatives(x);
        common::assert_close(d[0], 10.0 * x, 1e-13, "identities value");
        common::assert_close(d[1], 10.0, 1e-12, "identities'");
        assert!(d[2].abs() < 1e-9, "identities'' at {x}: {}", d[2]);
        assert!(d[3].abs() < 1e-7, "identities''' at {x}: {}", d[3]);
    }
    for n in 0..17u32 {
        for &x in &[-1.2, -0.4, 0.7, 1.1] {
            let d = more::pow_by_squaring_derivatives(x, n);
            let nf = f64::from(n);
            let by_hand = [
                x.powi(n as i32),
                nf * x.powi(n as i32 - 1),
                nf * (nf - 1.0) * x.powi(n as i32 - 2),
                nf * (nf - 1.0) * (nf - 2.0) * x.powi(n as i32 - 3),
            ];
            for k in 0..4 {
                let expected = if (k as u32) > n { 0.0 } else { by_hand[k] };
                common::assert_close(d[k], expected, 1e-12, &format!("x^{n} ({k}) at {x}"));
            }
        }
    }
}

/// The generic recursion on dual numbers: the tangent of the determinant is `tr(adj(A) dA)`.
#[test]
fn second_round_det_on_duals() {
    use autodiff::Dual;
    let mut r = Lcg::new(41);
    for _ in 0..3 {
        let a = well_conditioned(4)(&mut r);
        let t = r.vec(16, -1.0, 1.0);
        let duals: Vec<Dual<f64>> = a.iter().zip(&t).map(|(&x, &d)| Dual::new(x, d)).collect();
        let d = more::det_minor_t(&duals, 4);
        let g = det_gradient(&a, 4, cppad::det_by_minor(&a, 4));
        common::assert_close(d.re, cppad::det_by_lu(&a, 4), 1e-12, "det on duals");
        common::assert_close(d.eps, dot(&g, &t), 1e-11, "det tangent on duals");
    }
}

#[test]
fn second_round_vectors() {
    check_vector(
        "log_softmax4",
        5,
        range(4, -3.0, 3.0),
        &|x| more::log_softmax4([x[0], x[1], x[2], x[3]]).to_vec(),
        &|x, c| {
            let (v, g) = more::log_softmax4_vjp([x[0], x[1], x[2], x[3]], [c[0], c[1], c[2], c[3]]);
            (v.to_vec(), g.to_vec())
        },
        &|x, t| {
            let (v, d) = more::log_softmax4_jvp([x[0], x[1], x[2], x[3]], [t[0], t[1], t[2], t[3]]);
            (v.to_vec(), d.to_vec())
        },
        Some(&|x| more::log_softmax4_jacobian([x[0], x[1], x[2], x[3]])),
    );
    // The array version against the slice version.
    let v = [0.7, -0.2, 1.9, -1.4];
    common::assert_all_close(
        &more::log_softmax4_jacobian(v).concat(),
        &stan::log_softmax_jacobian(&v).concat(),
        1e-15,
        "log_softmax4 against log_softmax",
    );
    check_vector(
        "rk4_oscillator",
        4,
        |r: &mut Lcg| {
            vec![
                r.uniform(0.5, 2.0),
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.05, 0.2),
            ]
        },
        &|x| {
            let (y, v) = more::rk4_oscillator(x[0], (x[1], x[2]), x[3], 10);
            vec![y, v]
        },
        &|x, c| {
            let ((y, v), (gk, (gy, gv), gh)) =
                more::rk4_oscillator_vjp(x[0], (x[1], x[2]), x[3], 10, (c[0], c[1]));
            (vec![y, v], vec![gk, gy, gv, gh])
        },
        &|x, t| {
            let ((y, v), (dy, dv)) =
                more::rk4_oscillator_jvp(x[0], (x[1], x[2]), x[3], 10, (t[0], (t[1], t[2]), t[3]));
            (vec![y, v], vec![dy, dv])
        },
        None,
    );
    // RK4 is linear in the initial state: d(y, v)/d(y0, v0) is the step matrix, whose columns are the
    // solutions from (1, 0) and (0, 1).
    let (k, h) = (1.3, 0.1);
    let e1 = more::rk4_oscillator(k, (1.0, 0.0), h, 10);
    let e2 = more::rk4_oscillator(k, (0.0, 1.0), h, 10);
    let (_, (_, (gy, gv), _)) = more::rk4_oscillator_vjp(k, (0.3, -0.8), h, 10, (1.0, 0.0));
    common::assert_all_close(&[gy, gv], &[e1.0, e2.0], 1e-14, "RK4 state derivative");
}

#[test]
fn second_round_f32_jets() {
    let pts: [(f32, f32); 3] = [(0.8, 1.3), (1.6, 0.4), (0.35, 2.2)];
    for &(x, y) in &pts {
        let (v, (gx, gy)) = more::jets_f32_grad(x, y);
        assert_eq!(v, more::jets_f32(x, y));
        let (xd, yd) = (f64::from(x), f64::from(y));
        let r2 = xd * xd + yd * yd;
        let c = (xd * yd).cbrt();
        // atan2(x, y) + hypot + x^y + cbrt(xy) + copysign(x, -y) = ... - x for x, y > 0.
        let by_hand = [
            yd / r2 + xd / r2.sqrt() + yd * xd.powf(yd - 1.0) + c / (3.0 * xd) - 1.0,
            -xd / r2 + yd / r2.sqrt() + xd.ln() * xd.powf(yd) + c / (3.0 * yd),
        ];
        common::assert_all_close(
            &[f64::from(gx), f64::from(gy)],
            &by_hand,
            1e-5,
            "jets_f32 gradient",
        );
        let (_, _, h) = more::jets_f32_hessian(x, y);
        // The Hessian against central differences of the f64 gradient by hand.
        let grad64 = |p: &[f64]| {
            let (xd, yd) = (p[0], p[1]);
            let r2 = xd * xd + yd * yd;
            let c = (xd * yd).cbrt();
            vec![
                yd / r2 + xd / r2.sqrt() + yd * xd.powf(yd - 1.0) + c / (3.0 * xd) - 1.0,
                -xd / r2 + yd / r2.sqrt() + xd.ln() * xd.powf(yd) + c / (3.0 * yd),
            ]
        };
        let hd: Vec<Vec<f64>> = h
            .iter()
            .map(|r| r.iter().map(|&v| f64::from(v)).collect())
            .collect();
        common::assert_hessian_fd(&hd, grad64, &[xd, yd], 1e-4, "jets_f32 Hessian");
        let (jv, d) = more::jets_f32_jvp(x, y, (0.5, -1.5));
        assert_eq!(jv, v);
        common::assert_close(
            f64::from(d),
            0.5 * f64::from(gx) - 1.5 * f64::from(gy),
            1e-5,
            "jets_f32 jvp",
        );
    }
}

#[test]
fn second_round_mixture_struct() {
    use more::Mixture;
    let mut r = Lcg::new(2031);
    let y = r.vec(6, -2.0, 2.0);
    let at = |p: &[f64]| Mixture {
        logit_w: p[0],
        mu: [p[1], p[2]],
        log_sigma: p[3..5].to_vec(),
    };
    Probe::new("mixture", |p| at(p).log_lik(&y))
        .grad(|p| {
            let (v, g) = at(p).log_lik_grad(&y);
            (v, autodiff::Differentiable::to_flat(&g))
        })
        .jvp(|p, t| at(p).log_lik_jvp(&y, at(t)))
        .hessian(|p| {
            let (v, g, h) = at(p).log_lik_hessian(&y);
            (v, autodiff::Differentiable::to_flat(&g), h)
        })
        .analytic(|p| {
            // By hand: with responsibilities ρ_k of each component for each point,
            // d/dμ_k = Σ ρ_k z_k / σ_k, d/d ln σ_k = Σ ρ_k (z_k² - 1), d/d logit = Σ (ρ_0 - w).
            let m = at(p);
            let w = 1.0 / (1.0 + (-m.logit_w).exp());
            let mut g = vec![0.0; 5];
            for &v in &y {
                let dens = |k: usize| {
                    let s = m.log_sigma[k].exp();
                    let z = (v - m.mu[k]) / s;
                    ((-0.5 * z * z).exp() / s, z, s)
                };
                let ((d0, z0, s0), (d1, z1, s1)) = (dens(0), dens(1));
                let total = w * d0 + (1.0 - w) * d1;
                let (r0, r1) = (w * d0 / total, (1.0 - w) * d1 / total);
                g[0] += r0 - w;
                g[1] += r0 * z0 / s0;
                g[2] += r1 * z1 / s1;
                g[3] += r0 * (z0 * z0 - 1.0);
                g[4] += r1 * (z1 * z1 - 1.0);
            }
            g
        })
        .run(5, |r: &mut Lcg| {
            vec![
                r.uniform(-1.0, 1.0),
                r.uniform(-1.5, 0.0),
                r.uniform(0.0, 1.5),
                r.uniform(-0.5, 0.5),
                r.uniform(-0.5, 0.5),
            ]
        });
}

#[test]
fn third_round_in_place() {
    use third::*;
    let entries: Vec<Entry> = vec![
        (
            slice(
                "cumulative_lse",
                cumulative_lse,
                cumulative_lse_grad,
                cumulative_lse_jvp,
                cumulative_lse_grad_into,
            )
            .hessian(hess_slice(cumulative_lse_hessian))
            .analytic(|x| {
                // v_i = ln Σ_{k<=i} e^{x_k}; d v_i / d x_k = e^{x_k - v_i} for k <= i.
                let n = x.len();
                let lse = |i: usize| x[..=i].iter().map(|v| v.exp()).sum::<f64>().ln();
                let (a, b) = (lse(n - 1), lse(n / 2));
                (0..n)
                    .map(|k| {
                        let da = (x[k] - a).exp();
                        let db = if k <= n / 2 { (x[k] - b).exp() } else { 0.0 };
                        da * b + a * db
                    })
                    .collect()
            }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            slice("ranked", ranked, ranked_grad, ranked_jvp, ranked_grad_into)
                .hessian(hess_slice(ranked_hessian))
                .analytic(|x| {
                    // Each x_k lands at its rank r: 2 (r + 1) x_k.
                    (0..x.len())
                        .map(|k| {
                            let rank = x.iter().filter(|&&v| v < x[k]).count();
                            2.0 * (rank as f64 + 1.0) * x[k]
                        })
                        .collect()
                }),
            Box::new(common::probe::distinct(6, -2.0, 2.0, 0.01)),
        ),
        (
            Probe::new("horner_fma", |x| horner_fma(&x[..5], x[5]))
                .grad(|x| {
                    let (v, (g, gz)) = horner_fma_grad(&x[..5], x[5]);
                    (v, [g, vec![gz]].concat())
                })
                .jvp(|x, t| horner_fma_jvp(&x[..5], x[5], (t[..5].to_vec(), t[5])))
                .hessian(|x| {
                    let (v, (g, gz), h) = horner_fma_hessian(&x[..5], x[5]);
                    (v, [g, vec![gz]].concat(), h)
                })
                .analytic(|x| {
                    // The same polynomial as `poly_all`, whose gradient is checked by hand above.
                    let (_, (g, gz)) = cppad::poly_all_grad(&x[..5], x[5]);
                    [g, vec![gz]].concat()
                }),
            Box::new(range(6, -1.5, 1.5)),
        ),
        (
            one(
                "newton_sqrt",
                newton_sqrt::<f64>,
                newton_sqrt_grad::<f64>,
                newton_sqrt_jvp::<f64>,
                newton_sqrt_grad_into::<f64>,
            )
            .hessian(hess1(
                newton_sqrt_hessian::<f64>,
                newton_sqrt_derivatives::<f64>,
            ))
            .analytic(|x| vec![0.5 / x[0].sqrt()]),
            Box::new(range(1, 0.01, 50.0)),
        ),
        (
            Probe::new("quadratic", |p| {
                Quadratic {
                    a: p[0],
                    b: p[1],
                    c: p[2],
                }
                .eval(p[3])
            })
            .grad(|p| {
                let (v, (g, gx)) = Quadratic {
                    a: p[0],
                    b: p[1],
                    c: p[2],
                }
                .eval_grad(p[3]);
                (v, vec![g.a, g.b, g.c, gx])
            })
            .jvp(|p, t| {
                Quadratic {
                    a: p[0],
                    b: p[1],
                    c: p[2],
                }
                .eval_jvp(
                    p[3],
                    (
                        Quadratic {
                            a: t[0],
                            b: t[1],
                            c: t[2],
                        },
                        t[3],
                    ),
                )
            })
            .hessian(|p| {
                let (v, (g, gx), h) = Quadratic {
                    a: p[0],
                    b: p[1],
                    c: p[2],
                }
                .eval_hessian(p[3]);
                (v, vec![g.a, g.b, g.c, gx], h)
            })
            .analytic(|p| vec![p[3] * p[3], p[3], 1.0, 2.0 * p[0] * p[3] + p[1]]),
            Box::new(range(4, -2.0, 2.0)),
        ),
        (
            slice(
                "match_tuples",
                match_tuples,
                match_tuples_grad,
                match_tuples_jvp,
                match_tuples_grad_into,
            )
            .hessian(hess_slice(match_tuples_hessian))
            .analytic(|x| {
                (0..x.len())
                    .map(|k| {
                        let y = 0.5 * x[k];
                        // d/dy of s c + y, times 1/2.
                        let d = match k % 3 {
                            0 => (2.0 * y).cos(),
                            1 => -(2.0 * y).cos(),
                            _ => 6.0 * y * y,
                        };
                        0.5 * (d + 1.0)
                    })
                    .collect()
            }),
            Box::new(range(7, -2.0, 2.0)),
        ),
        (
            Probe::new("labelled_search", |x| labelled_search(x, 1.5))
                .grad(|x| {
                    let (v, (g, _)) = labelled_search_grad(x, 1.5);
                    (v, g)
                })
                .jvp(|x, t| labelled_search_jvp(x, 1.5, (t.to_vec(), 0.0)))
                .hessian(|x| {
                    let (v, (g, _), h) = labelled_search_hessian(x, 1.5);
                    let n = x.len();
                    (v, g, h[..n].iter().map(|r| r[..n].to_vec()).collect())
                }),
            Box::new(range(5, -1.0, 1.5)),
        ),
    ];
    run_all(entries);
}

#[test]
fn third_round_thomas_and_hvp() {
    let n = 5;
    let split = |x: &[f64]| {
        (
            x[..n].to_vec(),
            x[n..2 * n].to_vec(),
            x[2 * n..3 * n].to_vec(),
            x[3 * n..].to_vec(),
        )
    };
    let sample = |r: &mut Lcg| {
        let mut x = r.vec(n, -1.0, 1.0);
        x.extend(r.vec(n, 3.0, 4.0));
        x.extend(r.vec(n, -1.0, 1.0));
        x.extend(r.vec(n, -2.0, 2.0));
        x
    };
    check_vector(
        "thomas",
        4,
        sample,
        &|x| {
            let (a, b, c, d) = split(x);
            third::thomas(&a, &b, &c, &d)
        },
        &|x, w| {
            let (a, b, c, d) = split(x);
            let (v, (ga, gb, gc, gd)) = third::thomas_vjp(&a, &b, &c, &d, w.to_vec());
            (v, [ga, gb, gc, gd].concat())
        },
        &|x, t| {
            let (a, b, c, d) = split(x);
            let (ta, tb, tc, td) = split(t);
            third::thomas_jvp(&a, &b, &c, &d, (ta, tb, tc, td))
        },
        None,
    );
    // By hand: the solution solves the system, and dx/dd is the inverse of the tridiagonal matrix.
    let mut r = Lcg::new(3);
    let x = sample(&mut r);
    let (a, b, c, d) = split(&x);
    let sol = third::thomas(&a, &b, &c, &d);
    let m: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match j as i64 - i as i64 {
                    0 => b[i],
                    -1 => a[i],
                    1 => c[i],
                    _ => 0.0,
                })
                .collect()
        })
        .collect();
    for i in 0..n {
        common::assert_close(dot(&m[i], &sol), d[i], 1e-13, "thomas solves");
    }
    let inv = inverse(&m);
    for i in 0..n {
        let mut w = vec![0.0; n];
        w[i] = 1.0;
        let (_, (_, _, _, gd)) = third::thomas_vjp(&a, &b, &c, &d, w);
        common::assert_all_close(&gd, &inv[i], 1e-12, "dx/dd = M^-1");
    }

    // CppAD's `mul_level` is forward over reverse: `_hvp` against the Hessian times a vector.
    let mut r = Lcg::new(8);
    for _ in 0..3 {
        let x = well_conditioned(4)(&mut r);
        let v = r.vec(16, -1.0, 1.0);
        let (val, g, hv) = cppad::det_by_lu_hvp(&x, 4, v.clone());
        let (val2, g2, h) = cppad::det_by_lu_hessian(&x, 4);
        assert_eq!((val, &g), (val2, &g2));
        let by_h: Vec<f64> = h.iter().map(|row| dot(row, &v)).collect();
        common::assert_all_close(&hv, &by_h, 1e-12, "det_by_lu hvp");
        let y = r.vec(5, -2.0, 2.0);
        let t = r.vec(5, -1.0, 1.0);
        let (_, _, hv) = third::ranked_hvp(&y, t.clone());
        let (_, _, h) = third::ranked_hessian(&y);
        let by_h: Vec<f64> = h.iter().map(|row| dot(row, &t)).collect();
        common::assert_all_close(&hv, &by_h, 1e-12, "ranked hvp");
    }
}

/// The generic Newton square root in `f32`: the value and derivative against `f32`'s own `sqrt`.
#[test]
fn third_round_newton_f32() {
    for &a in &[0.04_f32, 0.9, 2.5, 17.0] {
        let (v, g) = third::newton_sqrt_grad(a);
        common::assert_close(f64::from(v), f64::from(a).sqrt(), 1e-6, "f32 sqrt");
        common::assert_close(f64::from(g), 0.5 / f64::from(a).sqrt(), 1e-5, "f32 sqrt'");
        let d = third::newton_sqrt_derivatives(a);
        common::assert_close(
            f64::from(d[2]),
            -0.25 * f64::from(a).powf(-1.5),
            1e-4,
            "f32 sqrt''",
        );
    }
}

#[test]
fn fourth_round() {
    use fourth::*;
    let mut data = Lcg::new(404);
    let y = data.vec(8, -2.0, 2.0);
    let y = &y;
    let entries: Vec<Entry> = vec![
        (
            Probe::new("local_level_lik", move |p| local_level_lik(p[0], p[1], y))
                .grad(move |p| {
                    let (v, (a, b)) = local_level_lik_grad(p[0], p[1], y);
                    (v, vec![a, b])
                })
                .jvp(move |p, t| local_level_lik_jvp(p[0], p[1], y, (t[0], t[1])))
                .hessian(move |p| {
                    let (v, (a, b), h) = local_level_lik_hessian(p[0], p[1], y);
                    (v, vec![a, b], h)
                }),
            Box::new(|r: &mut Lcg| vec![r.uniform(0.1, 2.0), r.uniform(0.1, 2.0)]),
        ),
        (
            Probe::new("sho_midpoint", |p| sho_midpoint(p[0], [p[1], p[2]], p[3]))
                .grad(|p| {
                    let (v, (k, y0, h)) = sho_midpoint_grad(p[0], [p[1], p[2]], p[3]);
                    (v, vec![k, y0[0], y0[1], h])
                })
                .jvp(|p, t| sho_midpoint_jvp(p[0], [p[1], p[2]], p[3], (t[0], [t[1], t[2]], t[3])))
                .hessian(|p| {
                    let (v, (k, y0, h), hm) = sho_midpoint_hessian(p[0], [p[1], p[2]], p[3]);
                    (v, vec![k, y0[0], y0[1], h], hm)
                }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(0.5, 2.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.05, 0.3),
                ]
            }),
        ),
        (
            Probe::new("recurrence_last", |p| recurrence_last(p[0], 5))
                .grad(|p| {
                    let (v, g) = recurrence_last_grad(p[0], 5);
                    (v, vec![g])
                })
                .jvp(|p, t| recurrence_last_jvp(p[0], 5, t[0]))
                .hessian(|p| {
                    let (v, g, h) = recurrence_last_hessian(p[0], 5);
                    (v, vec![g], h)
                })
                .analytic(|p| {
                    // b_5 = x^5 + 4 x^3 + 3 x (the Fibonacci polynomial F_6).
                    let x = p[0];
                    vec![5.0 * x.powi(4) + 12.0 * x * x + 3.0]
                }),
            Box::new(range(1, -1.5, 1.5)),
        ),
        (
            Probe::new("simplex_entropy", |x| simplex_entropy(x.to_vec()))
                .grad(|x| simplex_entropy_grad(x.to_vec()))
                .jvp(|x, t| simplex_entropy_jvp(x.to_vec(), t.to_vec()))
                .hessian(|x| simplex_entropy_hessian(x.to_vec()))
                .analytic(|x| {
                    // H = -Σ p ln p with p = softmax(x): dH/dx_k = -p_k (ln p_k + H).
                    let total: f64 = x.iter().map(|v| v.exp()).sum();
                    let p: Vec<f64> = x.iter().map(|v| v.exp() / total).collect();
                    let h: f64 = -p.iter().map(|q| q * q.ln()).sum::<f64>();
                    p.iter().map(|q| -q * (q.ln() + h)).collect()
                }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            Probe::new("weighted_ss", |x| {
                weighted_ss(&x[..3].to_vec(), &x[3..].to_vec())
            })
            .grad(|x| {
                let (v, (gx, gw)) = weighted_ss_grad(&x[..3].to_vec(), &x[3..].to_vec());
                (v, [gx, gw].concat())
            })
            .jvp(|x, t| {
                weighted_ss_jvp(
                    &x[..3].to_vec(),
                    &x[3..].to_vec(),
                    (t[..3].to_vec(), t[3..].to_vec()),
                )
            })
            .hessian(|x| {
                let (v, (gx, gw), h) = weighted_ss_hessian(&x[..3].to_vec(), &x[3..].to_vec());
                (v, [gx, gw].concat(), h)
            })
            .analytic(|x| {
                let s: f64 = (0..3).map(|i| x[3 + i] * x[i] * x[i]).sum::<f64>().sqrt();
                let mut g: Vec<f64> = (0..3).map(|i| x[3 + i] * x[i] / s).collect();
                g.extend((0..3).map(|i| x[i] * x[i] / (2.0 * s)));
                g
            }),
            Box::new(|r: &mut Lcg| {
                let mut x = r.vec(3, -2.0, 2.0);
                x.extend(r.vec(3, 0.5, 2.0));
                x
            }),
        ),
        (
            Probe::new("simpson_bump", |p| simpson_bump(p[0], p[1], p[2], p[3]))
                .grad(|p| {
                    let (v, g) = simpson_bump_grad(p[0], p[1], p[2], p[3]);
                    (v, vec![g.0, g.1, g.2, g.3])
                })
                .jvp(|p, t| simpson_bump_jvp(p[0], p[1], p[2], p[3], (t[0], t[1], t[2], t[3])))
                .hessian(|p| {
                    let (v, g, h) = simpson_bump_hessian(p[0], p[1], p[2], p[3]);
                    (v, vec![g.0, g.1, g.2, g.3], h)
                }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-0.5, 0.5),
                    r.uniform(0.4, 1.0),
                    r.uniform(-2.0, -1.0),
                    r.uniform(1.0, 2.0),
                ]
            }),
        ),
        (
            two(
                "gauss_legendre",
                gauss_legendre,
                gauss_legendre_grad,
                gauss_legendre_jvp,
                gauss_legendre_grad_into,
            )
            .hessian(hess2(gauss_legendre_hessian))
            .analytic(|p| {
                // The same quadrature of the derivatives of the integrand, summed here.
                let (a, b) = (p[0], p[1]);
                let (mut ga, mut gb) = (0.0, 0.0);
                for i in 0..5 {
                    let t = 0.5 * (fourth::GL_X[i] + 1.0);
                    ga += 0.5 * fourth::GL_W[i] * t * (a * t).exp() * (b * t).sin();
                    gb += 0.5 * fourth::GL_W[i] * t * (a * t).exp() * (b * t).cos();
                }
                vec![ga, gb]
            }),
            Box::new(range(2, -2.0, 2.0)),
        ),
        (
            Probe::new("residual", |x| {
                residual(&rows(&x[..6], 3), &x[6..9], &x[9..])
            })
            .grad(|x| {
                let (v, (ga, gx, gb)) = residual_grad(&rows(&x[..6], 3), &x[6..9], &x[9..]);
                (v, [ga.concat(), gx, gb].concat())
            })
            .jvp(|x, t| {
                residual_jvp(
                    &rows(&x[..6], 3),
                    &x[6..9],
                    &x[9..],
                    (rows(&t[..6], 3), t[6..9].to_vec(), t[9..].to_vec()),
                )
            })
            .hessian(|x| {
                let (v, (ga, gx, gb), h) = residual_hessian(&rows(&x[..6], 3), &x[6..9], &x[9..]);
                (v, [ga.concat(), gx, gb].concat(), h)
            })
            .analytic(|x| {
                // r = A x - b: d/dA_ij = 2 r_i x_j, d/dx = 2 Aᵀ r, d/db = -2 r.
                let a = rows(&x[..6], 3);
                let (xs, b) = (&x[6..9], &x[9..]);
                let r: Vec<f64> = (0..2).map(|i| dot(&a[i], xs) - b[i]).collect();
                let mut g = vec![];
                for i in 0..2 {
                    for j in 0..3 {
                        g.push(2.0 * r[i] * xs[j]);
                    }
                }
                for j in 0..3 {
                    g.push(2.0 * (0..2).map(|i| a[i][j] * r[i]).sum::<f64>());
                }
                g.extend(r.iter().map(|v| -2.0 * v));
                g
            }),
            Box::new(range(11, -1.5, 1.5)),
        ),
        (
            Probe::new("segment_len", |x| segment_len(([x[0], x[1]], [x[2], x[3]])))
                .grad(|x| {
                    let (v, (a, b)) = segment_len_grad(([x[0], x[1]], [x[2], x[3]]));
                    (v, vec![a[0], a[1], b[0], b[1]])
                })
                .jvp(|x, t| {
                    segment_len_jvp(([x[0], x[1]], [x[2], x[3]]), ([t[0], t[1]], [t[2], t[3]]))
                })
                .hessian(|x| {
                    let (v, (a, b), h) = segment_len_hessian(([x[0], x[1]], [x[2], x[3]]));
                    (v, vec![a[0], a[1], b[0], b[1]], h)
                })
                .analytic(|x| {
                    let (dx, dy) = (x[2] - x[0], x[3] - x[1]);
                    let l = dx.hypot(dy);
                    vec![-dx / l, -dy / l, dx / l, dy / l]
                }),
            Box::new(range(4, -2.0, 2.0)),
        ),
        (
            two(
                "cond_exp",
                cond_exp,
                cond_exp_grad,
                cond_exp_jvp,
                cond_exp_grad_into,
            )
            .hessian(hess2(cond_exp_hessian)),
            Box::new(|r: &mut Lcg| loop {
                let (x, y) = (r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5));
                let far = |a: f64, b: f64| (a - b).abs() > 0.05;
                if far(x, -0.5) && far(x, 0.5) && far(x, y) && far(x * y, 0.0) {
                    break vec![x, y];
                }
            }),
        ),
        (
            Probe::new("lin_ode", |x| lin_ode(&rows(&x[..9], 3), &x[9..12], x[12]))
                .grad(|x| {
                    let (v, (ga, gy, gt)) = lin_ode_grad(&rows(&x[..9], 3), &x[9..12], x[12]);
                    (v, [ga.concat(), gy, vec![gt]].concat())
                })
                .jvp(|x, t| {
                    lin_ode_jvp(
                        &rows(&x[..9], 3),
                        &x[9..12],
                        x[12],
                        (rows(&t[..9], 3), t[9..12].to_vec(), t[12]),
                    )
                })
                .hessian(|x| {
                    let (v, (ga, gy, gt), h) = lin_ode_hessian(&rows(&x[..9], 3), &x[9..12], x[12]);
                    (v, [ga.concat(), gy, vec![gt]].concat(), h)
                })
                .analytic(|x| {
                    // Linear in y0: d/dy0 = 1ᵀ (I + h A)^10.
                    let a = rows(&x[..9], 3);
                    let h = x[12] / 10.0;
                    let mut w = vec![1.0; 3];
                    for _ in 0..10 {
                        w = (0..3)
                            .map(|j| w[j] + h * (0..3).map(|i| w[i] * a[i][j]).sum::<f64>())
                            .collect();
                    }
                    let (_, (ga, _, gt)) = lin_ode_grad(&a, &x[9..12], x[12]);
                    [ga.concat(), w, vec![gt]].concat()
                }),
            Box::new(|r: &mut Lcg| {
                let mut x = r.vec(12, -1.0, 1.0);
                x.push(r.uniform(0.2, 1.0));
                x
            }),
        ),
    ];
    run_all(entries);
}

/// The recurrence's tuple result through `_vjp` and `_jvp`, against the Fibonacci polynomials by hand
/// (`n` steps give `(F_n, F_(n+1))`; for `n = 5`, `(x^4 + 3 x^2 + 1, x^5 + 4 x^3 + 3 x)`).
#[test]
fn fourth_round_recurrence_tuple() {
    for &x in &[-1.1, 0.3, 0.9] {
        let (v, g) = fourth::recurrence_vjp(x, 5, (0.5, -2.0));
        let (fa, fb) = (
            x.powi(4) + 3.0 * x * x + 1.0,
            x.powi(5) + 4.0 * x.powi(3) + 3.0 * x,
        );
        common::assert_all_close(&[v.0, v.1], &[fa, fb], 1e-14, "recurrence value");
        let (da, db) = (
            4.0 * x.powi(3) + 6.0 * x,
            5.0 * x.powi(4) + 12.0 * x * x + 3.0,
        );
        common::assert_close(g, 0.5 * da - 2.0 * db, 1e-13, "recurrence vjp");
        let (_, (ta, tb)) = fourth::recurrence_jvp(x, 5, 1.0);
        common::assert_all_close(&[ta, tb], &[da, db], 1e-13, "recurrence jvp");
    }
}

/// Simpson's rule's derivatives against those of the exact integral by hand:
/// `∫ exp(-(t-μ)²/2s²) dt = s √(π/2) [erf((hi-μ)/(s√2)) - erf((lo-μ)/(s√2))]`, whose `μ`-derivative is
/// `g(lo) - g(hi)` with `g` the integrand, and whose `lo`, `hi` derivatives are `-g(lo)`, `g(hi)`.
#[test]
fn fourth_round_simpson_by_hand() {
    let (mu, s, lo, hi) = (0.2, 0.7, -1.3, 1.6);
    let g = |t: f64| (-(t - mu) * (t - mu) / (2.0 * s * s)).exp();
    let (_, (gm, _, gl, gh)) = fourth::simpson_bump_grad(mu, s, lo, hi);
    common::assert_close(gm, g(lo) - g(hi), 1e-8, "d/dmu");
    // Simpson's value moves with its end points through the whole rule: close to the exact.
    common::assert_close(gl, -g(lo), 1e-6, "d/dlo");
    common::assert_close(gh, g(hi), 1e-6, "d/dhi");
}

#[test]
fn fourth_round_xent_f32() {
    let logits: Vec<f32> = vec![0.3, -1.2, 2.0, 0.7];
    for label in 0..4 {
        let (v, g) = fourth::xent_f32_grad(&logits, label);
        assert_eq!(v, fourth::xent_f32(&logits, label));
        let total: f64 = logits.iter().map(|&z| f64::from(z).exp()).sum();
        let p: Vec<f64> = logits.iter().map(|&z| f64::from(z).exp() / total).collect();
        for k in 0..4 {
            let by_hand = p[k] - f64::from(k == label);
            common::assert_close(f64::from(g[k]), by_hand, 1e-6, "xent_f32 gradient");
        }
        let (_, _, h) = fourth::xent_f32_hessian(&logits, label);
        for i in 0..4 {
            for j in 0..4 {
                let by_hand = p[i] * (f64::from(i == j) - p[j]);
                common::assert_close(f64::from(h[i][j]), by_hand, 1e-6, "xent_f32 Hessian");
            }
        }
    }
}

/// `method_chains` by hand: `h = x f(x)`, `f = sin g(x) + w1 g(2x)`, `g = b x³ + w0 x`, so
/// `h'' = 2 f' + x f''` with `f' = cos g g' + 2 w1 g'(2x)`, `f'' = -sin g g'² + cos g g'' + 4 w1 g''(2x)`.
#[test]
fn method_chains_at_order_two() {
    use method_chains::Chain;
    let c = Chain {
        b: 1.5,
        w: [0.3, -0.7],
    };
    let (b, w0, w1) = (c.b, c.w[0], c.w[1]);
    let g = |x: f64| b * x * x * x + w0 * x;
    let dg = |x: f64| 3.0 * b * x * x + w0;
    let ddg = |x: f64| 6.0 * b * x;
    for &x in &[0.7, -1.2, 0.15, 1.6] {
        let df = g(x).cos() * dg(x) + 2.0 * w1 * dg(2.0 * x);
        let ddf = -g(x).sin() * dg(x) * dg(x) + g(x).cos() * ddg(x) + 4.0 * w1 * ddg(2.0 * x);
        let f = g(x).sin() + w1 * g(2.0 * x);
        let (v, gr, h) = c.h_hessian(x);
        assert_eq!(v, c.h(x));
        common::assert_close(gr, f + x * df, 1e-12, "h'");
        common::assert_close(h[0][0], 2.0 * df + x * ddf, 1e-12, "h''");
        let d = c.h_derivatives(x);
        common::assert_close(d[2], h[0][0], 1e-12, "h_derivatives");
        common::check_by_hand(
            "method chain",
            x,
            &[c.h(x), f + x * df, 2.0 * df + x * ddf],
            |x| c.h(x),
            |x| c.h_grad(x),
            &d,
            h[0][0],
        );

        // Through a callee taking `self` by value: (w0 sin x + b x)² + x², to the third derivative.
        let p = w0 * x.sin() + b * x;
        let (dp, ddp, dddp) = (w0 * x.cos() + b, -w0 * x.sin(), -w0 * x.cos());
        let by_hand = [
            p * p + x * x,
            2.0 * p * dp + 2.0 * x,
            2.0 * (dp * dp + p * ddp) + 2.0,
            2.0 * (3.0 * dp * ddp + p * dddp),
        ];
        let d = c.outer_value_derivatives(x);
        common::assert_all_close(&d, &by_hand, 1e-12, "outer_value derivatives");
    }

    // `constant_caller = mixed(x) x2`, `mixed = sin(b x1 x2) + w1 sin(x2) x0`: its Hessian against
    // central differences of its gradient, and its gradient against the formula.
    Probe::new("constant_caller", |x| c.constant_caller(x))
        .grad(|x| c.constant_caller_grad(x))
        .jvp(|x, t| c.constant_caller_jvp(x, t.to_vec()))
        .hessian(|x| c.constant_caller_hessian(x))
        .analytic(|x| {
            let m = (b * x[1] * x[2]).sin() + w1 * x[2].sin() * x[0];
            let cs = (b * x[1] * x[2]).cos();
            vec![
                w1 * x[2].sin() * x[2],
                cs * b * x[2] * x[2],
                (cs * b * x[1] + w1 * x[2].cos() * x[0]) * x[2] + m,
            ]
        })
        .run(5, range(3, -1.5, 1.5));
}

#[test]
fn array_field_passed_twice() {
    use fields_passed_twice::*;
    let at = |x: &[f64]| S {
        w: x[..2].to_vec(),
        arr: [x[2], x[3]],
    };
    let flat = |g: &S| autodiff::Differentiable::to_flat(g);
    Probe::new("array_field_passed_twice", |x| {
        array_field_passed_twice(&at(x), x[4])
    })
    .grad(|x| {
        let (v, (g, gs)) = array_field_passed_twice_grad(&at(x), x[4]);
        (v, [flat(&g), vec![gs]].concat())
    })
    .jvp(|x, t| array_field_passed_twice_jvp(&at(x), x[4], (at(t), t[4])))
    .hessian(|x| {
        let (v, (g, gs), h) = array_field_passed_twice_hessian(&at(x), x[4]);
        (v, [flat(&g), vec![gs]].concat(), h)
    })
    .analytic(|x| {
        // a1 s + a1 w1 s over (w0, w1, a0, a1, s).
        let (w1, a1, s) = (x[1], x[3], x[4]);
        vec![0.0, a1 * s, 0.0, s + w1 * s, a1 + a1 * w1]
    })
    .run(5, range(5, -1.5, 1.5));
    Probe::new("product_of_passes", |x| product_of_passes(&at(x), x[4]))
        .grad(|x| {
            let (v, (g, gs)) = product_of_passes_grad(&at(x), x[4]);
            (v, [flat(&g), vec![gs]].concat())
        })
        .jvp(|x, t| product_of_passes_jvp(&at(x), x[4], (at(t), t[4])))
        .hessian(|x| {
            let (v, (g, gs), h) = product_of_passes_hessian(&at(x), x[4]);
            (v, [flat(&g), vec![gs]].concat(), h)
        })
        .analytic(|x| {
            let (a1, s) = (x[3], x[4]);
            vec![0.0, 0.0, 0.0, 2.0 * a1 * s.powi(3), 3.0 * a1 * a1 * s * s]
        })
        .run(5, range(5, -1.5, 1.5));
}
