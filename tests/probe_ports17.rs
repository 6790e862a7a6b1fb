//! A trust probe written as a new user would: the programs of other AD tools' test suites, written anew
//! in plain Rust (never their code; each program cites the original test it follows).
//!
//! - Enzyme's integration tests (`enzyme/test/Integration/ReverseMode` and `ForwardMode`): `sumtil2`
//!   (a loop left by `break` on a running sum), `insertsort_sum` (an in-place insertion sort with a
//!   data-dependent `while`, then a partial sum), `mycos`'s `my_sin2` (a Taylor series with an integer
//!   factorial by recursion, to the fourth derivative), `taylorlog`, `readwriteread` (a value read,
//!   written in place by a callee, read again), `rwrloop` (a matrix read and zeroed as it is read, an
//!   integer output), `fwdsolve` (forward substitution writing an output read back), `manymax`'s running
//!   maximum, `multivecmaxC` (the mean of the tied maxima), `newton_inversion` (a Newton solve with a
//!   data-dependent trip count and a clamp: the gradient is the implicit-function one and forgets the
//!   initial guess), `fabs_signed_zero`, `pow_zero`, `div_range` (`x / y` at `y = 1e±160`, and its second
//!   derivatives at `y = 1e80`), `guarded_normalize` (three guards of a normalisation and its Jacobian,
//!   the projector), `euler_homogeneity` (`A(U) U = F(U)` for the Euler flux), `entropy_hessian` (the
//!   Hessian of Harten's entropy: symmetric, positive definite, the Jacobian of the entropy variables),
//!   `loops`/`loopsdouble`/`loopstriple`, `eigensumsqdyn`, `mixedstruct1` and `gradient-struct-return`.
//! - ForwardDiff.jl / ChainRules.jl / JAX `lax_autodiff_test.py` style scalar cases: the float methods to
//!   the third derivative against their formulas, `atan2`, `hypot` and `mul_add` with every argument
//!   active (Hessians by hand), `powf` with both arguments active, integer powers at and away from 0,
//!   `sqrt` near 0, `max`/`min`/`abs`/`clamp`/`signum` at their kinks (the values docs/conventions.md
//!   states), `prod` and `cumprod` with zero factors.
//! - Tapenade's validation modes (divided differences for the tangent, the dot-product test for the
//!   adjoint) on a Lorenz-63 RK4 trajectory and a limited upwind advection scheme.
//! - `found`: the minimal programs of what this probe found failing (an output parameter named `ret`; the
//!   zero adjoint of a root that the branch taken does not read).
//!
//! Every derivative is checked against central differences written in `common::probe` and against the
//! original suite's expected values or a formula worked out by hand, on many seeded inputs: `f_grad`,
//! `f_jvp` along a random tangent, `f_grad_into` with its buffers filled with NaN, `f_vjp` and
//! `f_jacobian` for vector results, and `f_hessian` of `order = 2` against central differences of
//! `f_grad`.

// The forms the ported C is written in: index loops, `while` with `&&`, swaps through a temporary,
// element-by-element copies, explicit returns, the original's 3.14; the probe's function-pointer types spell out the generated signatures.
#![allow(
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::manual_swap,
    clippy::type_complexity,
    clippy::excessive_precision,
    clippy::assign_op_pattern,
    clippy::manual_clamp,
    clippy::manual_memcpy,
    clippy::approx_constant
)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::*;

const POINTS: usize = 30;

// ---------------------------------------------------------------------------------------------------
// Enzyme: loops with data-dependent trip counts.
// ---------------------------------------------------------------------------------------------------

pub mod enzyme {
    use autodiff::differentiable;

    /// ForwardMode/sumtil2.c: a running sum that adds each element twice, left by `break` in between
    /// once it passes 15.
    #[differentiable(order = 2)]
    pub fn sumtil(vec: &[f64]) -> f64 {
        let mut ret = 0.0;
        for i in 0..vec.len() {
            ret += vec[i];
            if ret > 15.0 {
                break;
            }
            ret += vec[i];
        }
        ret
    }

    /// ReverseMode/insertsort_sum.c: insertion sort (descending) in place, then the sum of the first
    /// half, written to `ret`.
    #[differentiable]
    pub fn insertsort_sum(array: &mut [f64], ret: &mut f64) {
        let n = array.len();
        for i in 1..n {
            let mut j = i;
            while j > 0 && array[j - 1] < array[j] {
                let tmp = array[j];
                array[j] = array[j - 1];
                array[j - 1] = tmp;
                j -= 1;
            }
        }
        let mut sum = 0.0;
        for i in 0..n / 2 {
            sum += array[i];
        }
        *ret = sum;
    }

    /// The same sort on a local copy, the sum returned: the form a Rust user writes.
    #[differentiable(order = 2)]
    pub fn sorted_top_half(x: &[f64]) -> f64 {
        let n = x.len();
        let mut a = vec![0.0; n];
        for i in 0..n {
            a[i] = x[i];
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 && a[j - 1] < a[j] {
                let tmp = a[j];
                a[j] = a[j - 1];
                a[j - 1] = tmp;
                j -= 1;
            }
        }
        let mut sum = 0.0;
        for i in 0..n / 2 {
            sum += a[i];
        }
        sum
    }

    /// ReverseMode/mycos.c's integer factorial, by recursion (no float in it).
    pub fn factorial(k: u64) -> u64 {
        if k == 0 {
            return 1;
        }
        k * factorial(k - 1)
    }

    /// ReverseMode/mycos.c `my_sin2`: the Taylor series of `sin` to degree 12, even terms skipped by
    /// `continue`, the sign from `i % 4`.
    #[differentiable(order = 4)]
    pub fn my_sin(x: f64) -> f64 {
        let mut result = 0.0;
        let n: u64 = 12;
        for i in 0..=n {
            if i % 2 == 0 {
                continue;
            }
            let sign = if i % 4 == 1 { 1.0 } else { -1.0 };
            result += x.powi(i as i32) / factorial(i) as f64 * sign;
        }
        result
    }

    /// Enzyme's `taylorlog` benchmark: `sum_{i=1}^{n} x^i / i`, the series of `-ln(1 - x)`.
    #[differentiable(order = 3)]
    pub fn taylorlog(x: f64, n: usize) -> f64 {
        let mut sum = 0.0;
        for i in 1..=n {
            sum += x.powf(i as f64) / i as f64;
        }
        sum
    }

    /// ReverseMode/readwriteread.c `f_read`.
    #[differentiable]
    pub fn f_read(x: &f64) -> f64 {
        *x * *x
    }

    /// ReverseMode/readwriteread.c `g_write`: scales its argument in place.
    #[differentiable]
    pub fn g_write(x: &mut f64, product: f64) {
        *x = *x * product;
    }

    /// ReverseMode/readwriteread.c `h_read`.
    #[differentiable]
    pub fn h_read(x: &f64) -> f64 {
        *x
    }

    /// ReverseMode/readwriteread.c `readwriteread_helper`: `x` read, overwritten by a callee, read
    /// again; the result is `x³`.
    #[differentiable]
    pub fn readwriteread(x: &mut f64) -> f64 {
        let product = f_read(x);
        g_write(x, product);
        h_read(x)
    }

    /// ForwardMode/rwrloop.c: the squares of the first `n` entries of each row of 10, each entry zeroed
    /// once read; then the integer `n` set to 7. (`*n = 7` of `n: &mut usize` is a compile error that
    /// says to write this: `tests/ui/signature/write-through-integer-reference.rs`.)
    #[differentiable]
    pub fn rwrloop(a: &mut [f64], n: &mut [usize]) -> f64 {
        let mut sum = 0.0;
        for i in 0..10 {
            for j in 0..n[0] {
                sum += a[10 * i + j] * a[10 * i + j];
                a[10 * i + j] = 0.0;
            }
        }
        n[0] = 7;
        sum
    }

    /// ReverseMode/fwdsolve.c `forward_sub`: `L out = b` for a unit lower-triangular `L` (row-major
    /// `n x n`), with the original's loop bound `j < i - 1` kept.
    #[differentiable]
    pub fn forward_sub(n: usize, l: &[f64], b: &[f64], out: &mut [f64]) {
        for i in 0..n {
            let mut tmp = b[i];
            if i > 1 {
                for j in 0..i - 1 {
                    tmp -= l[i * n + j] * out[j];
                }
            }
            out[i] = tmp;
        }
    }

    /// ReverseMode/manymax.c `alldiv`: a running maximum from `start`.
    #[differentiable]
    pub fn running_max(a: &[f64], start: f64) -> f64 {
        let mut start = start;
        for i in 0..a.len() {
            if a[i] > start {
                start = a[i];
            }
        }
        start
    }

    /// ReverseMode/multivecmaxC.c `reduce_max`: the mean of all the entries equal to the maximum,
    /// gathered into a scratch buffer.
    #[differentiable]
    pub fn reduce_max(vec: &[f64]) -> f64 {
        let size = vec.len();
        let mut ret = -10000000.0;
        let mut maxes = vec![0.0; size];
        let mut count = 0;
        for i in 0..size {
            if vec[i] > ret {
                count = 0;
                ret = vec[i];
            }
            if vec[i] == ret {
                maxes[count] = vec[i];
                count += 1;
            }
        }
        ret = 0.0;
        for i in 0..count {
            ret += maxes[i];
        }
        ret /= count as f64;
        ret
    }

    /// ReverseMode/loops.c, loopsdouble.c, loopstriple.c: sums over one, two and three nested loops.
    #[differentiable(order = 2)]
    pub fn loops_triple(x: &[f64], n: usize) -> f64 {
        let mut sum = 0.0;
        for i in 0..n {
            sum += x[i] * x[i];
            for j in 0..n {
                sum += x[i] * x[j] / (1.0 + (i + j) as f64);
                for k in 0..j {
                    sum += (x[k] * x[j]).sin() * 0.1;
                }
            }
        }
        sum
    }

    /// ReverseMode/eigensumsqdyn.cpp: the squared Frobenius norm of a dynamic matrix.
    #[differentiable(order = 2)]
    pub fn sumsq_dyn(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in m {
            for &v in row.iter() {
                s += v * v;
            }
        }
        s
    }
}

#[test]
fn enzyme_sumtil2() {
    // The original's point: tangent (2, 0, 1, 9, 8) at (1, 2, 3, 4, 5) gives 15.
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (v, d) = enzyme::sumtil_jvp(&x, vec![2.0, 0.0, 1.0, 9.0, 8.0]);
    assert_eq!(v, 16.0);
    assert_near(d, 15.0, 1e-12, 0.0, "sumtil2's tangent");
    let (_, g) = enzyme::sumtil_grad(&x);
    assert_vec_near(&g, &[2.0, 2.0, 2.0, 1.0, 0.0], 1e-12, "sumtil2's gradient");
    // Elsewhere: the count of doubled terms depends on the data.
    slice(
        "sumtil",
        enzyme::sumtil,
        enzyme::sumtil_grad,
        enzyme::sumtil_jvp,
        enzyme::sumtil_grad_into,
    )
    .analytic(|x| {
        let mut ret = 0.0;
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            ret += x[i];
            if ret > 15.0 {
                g[i] = 1.0;
                break;
            }
            ret += x[i];
            g[i] = 2.0;
        }
        g
    })
    .hessian(enzyme::sumtil_hessian)
    .run(POINTS, |r| {
        // Away from the break's threshold.
        loop {
            let x = r.vec(6, 0.5, 4.0);
            let mut ret: f64 = 0.0;
            let mut ok = true;
            for v in &x {
                ret += v;
                ok &= (ret - 15.0).abs() > 1e-3;
                if ret > 15.0 {
                    break;
                }
                ret += v;
            }
            if ok {
                break x;
            }
        }
    });
}

#[test]
fn enzyme_insertsort_sum() {
    // The original's input: 0, 1, 0, 1, ... (ties among the zeros and among the ones); the gradient
    // is 1 at the ones, which fill the first half, and 0 at the zeros.
    let n = 10;
    let mut array: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
    let mut ret = GARBAGE;
    let g = enzyme::insertsort_sum_vjp(&mut array, &mut ret, &[0.0; 10], 1.0);
    assert_eq!(ret, 5.0);
    assert_eq!(array, [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let expected: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
    assert_vec_near(&g, &expected, 1e-12, "insertsort_sum's gradient");
    let (s, g2) = enzyme::sorted_top_half_grad(&(0..n).map(|i| (i % 2) as f64).collect::<Vec<_>>());
    assert_eq!(s, 5.0);
    assert_vec_near(
        &g2,
        &expected,
        1e-12,
        "sorted_top_half at the original's input",
    );

    // Distinct random inputs: 1 at the indices of the n/2 largest.
    let top = |x: &[f64]| {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&a, &b| x[b].partial_cmp(&x[a]).unwrap());
        let mut g = vec![0.0; x.len()];
        for &i in &idx[..x.len() / 2] {
            g[i] = 1.0;
        }
        g
    };
    slice(
        "sorted_top_half",
        enzyme::sorted_top_half,
        enzyme::sorted_top_half_grad,
        enzyme::sorted_top_half_jvp,
        enzyme::sorted_top_half_grad_into,
    )
    .analytic(top)
    .hessian(enzyme::sorted_top_half_hessian)
    .run(POINTS, distinct(9, -3.0, 3.0, 1e-3));

    // The in-place version through its flat view: the sorted array and the sum as outputs.
    check_vector(
        "insertsort_sum",
        POINTS,
        distinct(7, -3.0, 3.0, 1e-3),
        &|x| {
            let mut a = x.to_vec();
            let mut ret = 0.0;
            enzyme::insertsort_sum(&mut a, &mut ret);
            a.push(ret);
            a
        },
        &|x, c| {
            let mut a = x.to_vec();
            let mut ret = GARBAGE;
            let g = enzyme::insertsort_sum_vjp(&mut a, &mut ret, &c[..x.len()], c[x.len()]);
            a.push(ret);
            (a, g)
        },
        &|x, t| {
            let mut a = x.to_vec();
            let mut ret = GARBAGE;
            let mut da = vec![GARBAGE; x.len()];
            let mut dret = GARBAGE;
            enzyme::insertsort_sum_jvp(&mut a, &mut ret, t.to_vec(), &mut da, &mut dret);
            a.push(ret);
            da.push(dret);
            (a, da)
        },
        None,
    );
}

#[test]
fn enzyme_mycos() {
    // The original checks my_sin2'' = -my_sin and my_sin2'''' = my_sin at 1.23, with Enzyme's
    // `__enzyme_iter` adding a term per derivative taken. Here the series stops at x¹¹ for every
    // derivative: the k-th derivative is the same series shifted by k, term by term, and within the
    // dropped terms (below 5e-7 on [-1.3, 1.3]) of -my_sin and my_sin.
    let shifted = |x: f64, k: usize| -> f64 {
        let mut s = 0.0;
        for i in (1..=11usize).step_by(2).filter(|&i| i >= k) {
            let sign = if i % 4 == 1 { 1.0 } else { -1.0 };
            s += sign * x.powi((i - k) as i32) / enzyme::factorial((i - k) as u64) as f64;
        }
        s
    };
    let mut rng = Lcg::new(seed_of("my_sin"));
    let mut xs = vec![1.23];
    xs.extend(rng.vec(POINTS, -1.3, 1.3));
    for &x in &xs {
        let d = enzyme::my_sin_derivatives(x);
        let s = enzyme::my_sin(x);
        assert_near(d[0], s, 1e-15, 0.0, "my_sin");
        for k in 1..5 {
            assert_near(
                d[k],
                shifted(x, k),
                1e-13,
                0.0,
                &format!("my_sin^({k}) at {x}"),
            );
        }
        assert_near(d[2], -s, 5e-7, 0.0, &format!("my_sin'' at {x}"));
        assert_near(d[4], s, 5e-5, 0.0, &format!("my_sin'''' at {x}"));
        assert_near(d[1], x.cos(), 1e-7, 0.0, &format!("my_sin' at {x}"));
    }
    check_third(
        "my_sin",
        |x| {
            let d = enzyme::my_sin_derivatives(x);
            [d[0], d[1], d[2], d[3]]
        },
        POINTS,
        -2.0,
        2.0,
    );
    one(
        "my_sin",
        enzyme::my_sin,
        enzyme::my_sin_grad,
        enzyme::my_sin_jvp,
        enzyme::my_sin_grad_into,
    )
    .hessian(hess1(enzyme::my_sin_hessian, enzyme::my_sin_derivatives))
    .run(POINTS, range(1, -3.0, 3.0));
}

#[test]
fn enzyme_taylorlog() {
    // d/dx sum x^i / i = sum x^(i-1) = (1 - x^n) / (1 - x); second derivative by hand.
    let mut rng = Lcg::new(seed_of("taylorlog"));
    for _ in 0..POINTS {
        let x = rng.uniform(0.05, 0.95);
        let n = 10000;
        let d = enzyme::taylorlog_derivatives(x, n);
        assert_near(d[0], -(1.0 - x).ln(), 1e-12, 0.0, "taylorlog's value");
        assert_near(d[1], 1.0 / (1.0 - x), 1e-10, 0.0, "taylorlog'");
        assert_near(d[2], 1.0 / (1.0 - x).powi(2), 1e-9, 0.0, "taylorlog''");
        assert_near(d[3], 2.0 / (1.0 - x).powi(3), 1e-8, 0.0, "taylorlog'''");
        let (v, g) = enzyme::taylorlog_grad(x, 12);
        assert_near(
            v,
            enzyme::taylorlog(x, 12),
            1e-15,
            0.0,
            "taylorlog_grad's value",
        );
        assert_near(
            g,
            (1.0 - x.powi(12)) / (1.0 - x),
            1e-12,
            0.0,
            "taylorlog_grad",
        );
        let (_, t) = enzyme::taylorlog_jvp(x, 12, 0.5);
        assert_near(t, 0.5 * g, 1e-14, 0.0, "taylorlog_jvp");
        let mut gi = GARBAGE;
        enzyme::taylorlog_grad_into(x, 12, &mut gi);
        assert_eq!(gi, g);
        let fd = fd1(&|y| enzyme::taylorlog(y, 12), x, 1e-6);
        assert_near(g, fd, 1e-7, 0.0, "taylorlog against central differences");
    }
}

#[test]
fn enzyme_readwriteread() {
    // The original: x = 2 gives dx = 3 * 2 * 2.
    let mut x = 2.0;
    let (v, g) = enzyme::readwriteread_grad(&mut x);
    assert_eq!(v, 8.0);
    assert_eq!(g, 12.0);
    let mut rng = Lcg::new(seed_of("readwriteread"));
    for _ in 0..POINTS {
        let x0 = rng.uniform(-2.0, 2.0);
        let mut x = x0;
        let (v, g) = enzyme::readwriteread_grad(&mut x);
        assert_eq!(
            x,
            x0 * x0 * x0,
            "the buffer is left as the function leaves it"
        );
        assert_near(v, x0.powi(3), 1e-15, 0.0, "readwriteread's value");
        assert_near(g, 3.0 * x0 * x0, 1e-14, 0.0, "readwriteread's gradient");
        let fd = fd1(
            &|y| {
                let mut y = y;
                enzyme::readwriteread(&mut y)
            },
            x0,
            1e-6,
        );
        assert_near(
            g,
            fd,
            1e-7,
            0.0,
            "readwriteread against central differences",
        );
        // vjp: the returned value and the final x are both x³; cotangents (c0, c1) give 3x²(c0 + c1).
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let mut x = x0;
        let (v, g) = enzyme::readwriteread_vjp(&mut x, c0, c1);
        assert_near(v, x0.powi(3), 1e-15, 0.0, "readwriteread_vjp's value");
        assert_near(
            g,
            3.0 * x0 * x0 * (c0 + c1),
            1e-13,
            0.0,
            "readwriteread_vjp",
        );
        let mut x = x0;
        let mut dx = GARBAGE;
        let (v, t) = enzyme::readwriteread_jvp(&mut x, 0.25, &mut dx);
        assert_near(v, x0.powi(3), 1e-15, 0.0, "readwriteread_jvp's value");
        assert_near(t, 0.75 * x0 * x0, 1e-13, 0.0, "readwriteread_jvp");
        assert_near(
            dx,
            0.75 * x0 * x0,
            1e-13,
            0.0,
            "readwriteread_jvp's output tangent",
        );
        let mut x = x0;
        let mut gi = GARBAGE;
        enzyme::readwriteread_grad_into(&mut x, &mut gi);
        assert_near(gi, 3.0 * x0 * x0, 1e-14, 0.0, "readwriteread_grad_into");
    }
}

#[test]
fn enzyme_rwrloop() {
    // The original: a[i][j] = 100 i + j, every tangent 1, n = 10: the tangent is 90900, and n is 7.
    let a0: Vec<f64> = (0..100).map(|k| (100 * (k / 10) + k % 10) as f64).collect();
    let mut a = a0.clone();
    let mut da = vec![GARBAGE; 100];
    let mut n = 10;
    let (v, d) = enzyme::rwrloop_jvp(
        &mut a,
        std::slice::from_mut(&mut n),
        vec![1.0; 100],
        &mut da,
    );
    assert_eq!(a, vec![0.0; 100], "every entry zeroed");
    assert_eq!(n, 7);
    assert_eq!(v, a0.iter().map(|x| x * x).sum::<f64>());
    assert_near(d, 90900.0, 1e-12, 0.0, "rwrloop's tangent");
    assert!(
        da.iter().all(|&t| t == 0.0),
        "the zeroed entries have tangent 0"
    );
    // Rows of 10, the first n of each read: gradient 2a there, 0 elsewhere.
    let mut rng = Lcg::new(seed_of("rwrloop"));
    for _ in 0..POINTS {
        let x = rng.vec(100, -2.0, 2.0);
        let cols = 1 + (rng.unit() * 9.0) as usize;
        let mut a = x.clone();
        let mut n = cols;
        let (v, g) = enzyme::rwrloop_grad(&mut a, std::slice::from_mut(&mut n));
        assert_eq!(n, 7);
        let f = |y: &[f64]| {
            let mut y = y.to_vec();
            enzyme::rwrloop(&mut y, &mut [cols])
        };
        assert_near(v, f(&x), 1e-14, 0.0, "rwrloop_grad's value");
        let expected: Vec<f64> = (0..100)
            .map(|k| if k % 10 < cols { 2.0 * x[k] } else { 0.0 })
            .collect();
        assert_vec_near(&g, &expected, 1e-14, "rwrloop_grad");
        assert_vec_near(
            &g,
            &fd_gradient(&f, &x),
            1e-6,
            "rwrloop against differences",
        );
        let mut a = x.clone();
        let mut gi = vec![GARBAGE; 100];
        enzyme::rwrloop_grad_into(&mut a, &mut [cols], &mut gi);
        assert_vec_near(&gi, &g, 1e-15, "rwrloop_grad_into");
    }
}

#[test]
fn enzyme_fwdsolve() {
    // The original: L[i] = i (3 x 3), b = (0.1, 0.2, 0.3), d_out = 1e4 (1, 2, 3):
    // dL = -3000 at entry 6 and 0 elsewhere, db = (-170000, 20000, 30000).
    let l: Vec<f64> = (0..9).map(|i| i as f64).collect();
    let b = [0.1, 0.2, 0.3];
    let mut out = [GARBAGE; 3];
    // `out` is read only after it is written (`out[j]` for `j < i`, each written by an earlier iteration):
    // its incoming value is no input, so `G` is `(dL, db)` (API.md), and the NaN going in shows nowhere.
    let (dl, db) = enzyme::forward_sub_vjp(3, &l, &b, &mut out, &[10000.0, 20000.0, 30000.0]);
    let mut real_dl = vec![0.0; 9];
    real_dl[6] = -3000.0;
    assert_vec_near(&dl, &real_dl, 1e-12, "fwdsolve's dL");
    assert_vec_near(&db, &[-170000.0, 20000.0, 30000.0], 1e-12, "fwdsolve's db");
    // Random systems of 5 through the flat view (L, b), the incoming `out` all NaN.
    let n = 5;
    let (l, b) = (0..n * n, n * n..n * n + n);
    check_vector(
        "forward_sub",
        POINTS,
        range(n * n + n, -1.0, 1.0),
        &|x| {
            let mut out = vec![GARBAGE; n];
            enzyme::forward_sub(n, &x[l.clone()], &x[b.clone()], &mut out);
            out
        },
        &|x, c| {
            let mut out = vec![GARBAGE; n];
            let (dl, db) = enzyme::forward_sub_vjp(n, &x[l.clone()], &x[b.clone()], &mut out, c);
            (out, [dl, db].concat())
        },
        &|x, t| {
            let mut out = vec![GARBAGE; n];
            let mut d = vec![GARBAGE; n];
            let tangent = (t[l.clone()].to_vec(), t[b.clone()].to_vec());
            enzyme::forward_sub_jvp(n, &x[l.clone()], &x[b.clone()], &mut out, tangent, &mut d);
            (out, d)
        },
        Some(&|x| {
            enzyme::forward_sub_jacobian(n, &x[l.clone()], &x[b.clone()], &mut vec![GARBAGE; n])
        }),
    );
}

#[test]
fn enzyme_manymax() {
    // The original: a = (1, 2, 3, 102, 5) from 3.14: d_a = e_3, d_start = 0; from 102 with
    // a = (1, .., 5): d_a = 0, d_start = 1.
    let (v, (ga, gs)) = enzyme::running_max_grad(&[1.0, 2.0, 3.0, 102.0, 5.0], 3.14);
    assert_eq!(v, 102.0);
    assert_eq!(ga, [0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(gs, 0.0);
    let (v, (ga, gs)) = enzyme::running_max_grad(&[1.0, 2.0, 3.0, 4.0, 5.0], 102.0);
    assert_eq!(v, 102.0);
    assert_eq!(ga, [0.0; 5]);
    assert_eq!(gs, 1.0);
    let f = |x: &[f64]| enzyme::running_max(&x[..6], x[6]);
    Probe::new("running_max", f)
        .grad(|x| {
            let (v, (a, s)) = enzyme::running_max_grad(&x[..6], x[6]);
            (v, [a, vec![s]].concat())
        })
        .jvp(|x, t| enzyme::running_max_jvp(&x[..6], x[6], (t[..6].to_vec(), t[6])))
        .grad_into(|x| {
            let mut a = vec![GARBAGE; 6];
            let mut s = GARBAGE;
            let v = enzyme::running_max_grad_into(&x[..6], x[6], (&mut a, &mut s));
            (v, [a, vec![s]].concat())
        })
        .analytic(|x| {
            let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            x.iter().map(|&v| if v == m { 1.0 } else { 0.0 }).collect()
        })
        .run(POINTS, distinct(7, -3.0, 3.0, 1e-3));
}

#[test]
fn enzyme_multivecmax() {
    // The original: (-1, 2, -0.2, 2, 1): the two tied maxima share the gradient, 0.5 each.
    let (v, g) = enzyme::reduce_max_grad(&[-1.0, 2.0, -0.2, 2.0, 1.0]);
    assert_eq!(v, 2.0);
    assert_vec_near(&g, &[0.0, 0.5, 0.0, 0.5, 0.0], 1e-15, "reduce_max at a tie");
    let (_, t) =
        enzyme::reduce_max_jvp(&[-1.0, 2.0, -0.2, 2.0, 1.0], vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_near(t, 3.0, 1e-15, 0.0, "reduce_max_jvp at a tie");
    // Three ties of five.
    let (_, g) = enzyme::reduce_max_grad(&[3.0, 3.0, 1.0, 3.0, -4.0]);
    let third = 1.0 / 3.0;
    assert_vec_near(&g, &[third, third, 0.0, third, 0.0], 1e-15, "three ties");
    // Distinct inputs: the maximum alone.
    slice(
        "reduce_max",
        enzyme::reduce_max,
        enzyme::reduce_max_grad,
        enzyme::reduce_max_jvp,
        enzyme::reduce_max_grad_into,
    )
    .analytic(|x| {
        let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        x.iter().map(|&v| if v == m { 1.0 } else { 0.0 }).collect()
    })
    .run(POINTS, distinct(8, -5.0, 5.0, 1e-3));
}

// ---------------------------------------------------------------------------------------------------
// Enzyme's newton_inversion.c: the temperature of a two-species gas from its energy, by Newton.
// ---------------------------------------------------------------------------------------------------

pub mod thermo {
    use autodiff::differentiable;

    pub const T_MIN: f64 = 50.0;
    pub const T_MAX: f64 = 20000.0;
    /// Per species: `e_k(T) = A_k T + B_k T² + C_k ln(1 + T / 1000)`, increasing in `T`.
    pub const A: [f64; 2] = [718.0, 650.0];
    pub const B: [f64; 2] = [0.02, 0.035];
    pub const C: [f64; 2] = [9.0e4, 2.0e5];

    #[differentiable(order = 2)]
    pub fn energy_species(k: usize, t: f64) -> f64 {
        A[k] * t + B[k] * t * t + C[k] * (1.0 + t / 1000.0).ln()
    }

    #[differentiable(order = 2)]
    pub fn cv_species(k: usize, t: f64) -> f64 {
        A[k] + 2.0 * B[k] * t + C[k] / (1000.0 + t)
    }

    /// `x = (e, Y0, Y1, T_guess)`: Newton on `sum Y_k e_k(T) = e`, the iterate clamped into
    /// `[T_MIN, T_MAX]` every pass, left on a converged step (a trip count known only at run time).
    #[differentiable(order = 2)]
    pub fn temperature(x: &[f64]) -> f64 {
        let e = x[0];
        let mut t = x[3];
        for _ in 0..100 {
            let mut r = -e;
            let mut cv = 0.0;
            for k in 0..2 {
                r += x[1 + k] * energy_species(k, t);
                cv += x[1 + k] * cv_species(k, t);
            }
            let step = r / cv;
            t = (t - step).max(T_MIN).min(T_MAX);
            if step.abs() <= 1e-13 * t {
                break;
            }
        }
        t
    }
}

#[test]
fn enzyme_newton_inversion() {
    let mixtures = [[0.767, 0.233], [0.5, 0.5]];
    let temperatures = [200.0, 300.0, 1000.0, 3000.0, 8000.0, 15000.0];
    let mut points = vec![];
    for m in mixtures {
        for t in temperatures {
            points.push((m, t, 500.0));
        }
    }
    let mut rng = Lcg::new(seed_of("newton_inversion"));
    for _ in 0..POINTS {
        let y0 = rng.uniform(0.1, 0.9);
        points.push((
            [y0, 1.0 - y0],
            rng.uniform(100.0, 18000.0),
            rng.uniform(100.0, 18000.0),
        ));
    }
    for (m, t_ref, guess) in points {
        let e = m[0] * thermo::energy_species(0, t_ref) + m[1] * thermo::energy_species(1, t_ref);
        let x = [e, m[0], m[1], guess];
        let (t, g) = thermo::temperature_grad(&x);
        assert_near(t, t_ref, 1e-12, 0.0, "the Newton solve");
        // The implicit-function answer: (1/cv, -e0/cv, -e1/cv, 0).
        let cv = m[0] * thermo::cv_species(0, t) + m[1] * thermo::cv_species(1, t);
        let want = [
            1.0 / cv,
            -thermo::energy_species(0, t) / cv,
            -thermo::energy_species(1, t) / cv,
            0.0,
        ];
        let at = format!("temperature at {x:?}");
        assert_vec_near(
            &g,
            &want,
            1e-10,
            &format!("{at}: against the implicit function"),
        );
        assert!(
            g[3].abs() <= 1e-12 * norm(&g),
            "{at}: the guess is forgotten: {}",
            g[3]
        );
        // Forward against reverse, column by column, to rounding.
        for c in 0..4 {
            let mut dx = vec![0.0; 4];
            dx[c] = 1.0;
            let (_, d) = thermo::temperature_jvp(&x, dx);
            assert_near(d, g[c], 1e-12, norm(&g), &format!("{at}: jvp column {c}"));
        }
        let mut gi = vec![GARBAGE; 4];
        thermo::temperature_grad_into(&x, &mut gi);
        assert_vec_near(&gi, &g, 1e-15, &format!("{at}: grad_into"));
        // The Hessian of T(e, Y): differentiate the closed-form gradient once more by differences.
        let (_, hg, h) = thermo::temperature_hessian(&x);
        assert_vec_near(&hg, &g, 1e-10, &format!("{at}: hessian's gradient"));
        let columns = fd_columns(&|y: &[f64]| thermo::temperature_grad(y).1, &x);
        for i in 0..3 {
            for j in 0..3 {
                let scale = norm(&columns[j]).max(norm(&h[i]));
                assert_near(
                    h[i][j],
                    columns[j][i],
                    1e-4,
                    scale,
                    &format!("{at}: H[{i}][{j}]"),
                );
            }
        }
    }
    // Clamped low and high: T sits at the bound and no gradient flows out of the clamp.
    for (e, bound) in [(-1.0e5, thermo::T_MIN), (1.0e12, thermo::T_MAX)] {
        let (t, g) = thermo::temperature_grad(&[e, 0.767, 0.233, 500.0]);
        assert_eq!(t, bound);
        assert_eq!(g, [0.0; 4]);
    }
}

// ---------------------------------------------------------------------------------------------------
// Enzyme's conventions at special points: fabs_signed_zero.c, pow_zero.c, div_range.c.
// ---------------------------------------------------------------------------------------------------

pub mod points {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn absf(x: f64) -> f64 {
        x.abs()
    }

    /// ForwardMode/fabs_signed_zero.c: `|-x²| = x²`, second derivative 2 everywhere, 0 included.
    #[differentiable(order = 3)]
    pub fn abs_neg_square(x: f64) -> f64 {
        (-x * x).abs()
    }

    /// ForwardMode/pow_zero.c.
    #[differentiable(order = 2)]
    pub fn pow(x: f64, y: f64) -> f64 {
        x.powf(y)
    }

    /// ForwardMode/div_range.c.
    #[differentiable(order = 2)]
    pub fn div(x: f64, y: f64) -> f64 {
        x / y
    }
}

#[test]
fn enzyme_fabs_signed_zero() {
    assert_eq!(points::absf_jvp(0.0, 1.0).1, 1.0);
    assert_eq!(points::absf_jvp(-0.0, 1.0).1, -1.0);
    assert_eq!(points::absf_jvp(2.0, 1.0).1, 1.0);
    assert_eq!(points::absf_jvp(-2.0, 1.0).1, -1.0);
    assert_eq!(points::absf_grad(0.0).1, 1.0);
    assert_eq!(points::absf_grad(-0.0).1, -1.0);
    assert_eq!(points::absf_derivatives(0.0), [0.0, 1.0, 0.0]);
    // First derivative 0 at 0, second derivative 2 at 0 and away from it.
    assert_eq!(points::abs_neg_square_grad(0.0).1, 0.0);
    assert_eq!(points::abs_neg_square_jvp(0.0, 1.0).1, 0.0);
    for x in [0.0, -0.0, 1.5, -1.5] {
        let d = points::abs_neg_square_derivatives(x);
        assert_eq!(d[2], 2.0, "|-x²|'' at {x}");
        assert_eq!(d[3], 0.0, "|-x²|''' at {x}");
        let (_, _, h) = points::abs_neg_square_hessian(x);
        assert_eq!(h[0][0], 2.0, "|-x²| Hessian at {x}");
        let (_, _, hv) = points::abs_neg_square_hvp(x, 1.0);
        assert_eq!(hv, 2.0, "|-x²| hvp at {x}");
    }
    one(
        "abs_neg_square",
        points::abs_neg_square,
        points::abs_neg_square_grad,
        points::abs_neg_square_jvp,
        points::abs_neg_square_grad_into,
    )
    .analytic(|x| vec![2.0 * x[0]])
    .hessian(hess1(
        points::abs_neg_square_hessian,
        points::abs_neg_square_derivatives,
    ))
    .run(POINTS, range(1, -3.0, 3.0));
}

#[test]
fn enzyme_pow_zero() {
    // pow(0, 1): slope 1 in x, 0 in y.
    let (v, (dx, dy)) = points::pow_grad(0.0, 1.0);
    assert_eq!((v, dx, dy), (0.0, 1.0, 0.0));
    assert_eq!(points::pow_jvp(0.0, 1.0, (1.0, 0.0)).1, 1.0);
    assert_eq!(points::pow_jvp(0.0, 1.0, (0.0, 1.0)).1, 0.0);
    // pow(0, 2): slope 0 in x and y; pow(x, 0): slope 0 in x (docs/conventions.md).
    assert_eq!(points::pow_grad(0.0, 2.0).1, (0.0, 0.0));
    assert_eq!(points::pow_grad(0.0, 0.0).1, (0.0, 0.0));
    assert_eq!(points::pow_grad(3.0, 0.0).1 .0, 0.0);
    // Both arguments active on x > 0 (ChainRules' `^` rule): (y x^(y-1), x^y ln x), and the Hessian
    // by hand.
    two(
        "pow",
        points::pow,
        points::pow_grad,
        points::pow_jvp,
        points::pow_grad_into,
    )
    .analytic(|p| {
        let (x, y) = (p[0], p[1]);
        vec![y * x.powf(y - 1.0), x.powf(y) * x.ln()]
    })
    .hessian(move |p| {
        let (x, y) = (p[0], p[1]);
        let (v, g, h) = points::pow_hessian(x, y);
        let l = x.ln();
        let hxx = y * (y - 1.0) * x.powf(y - 2.0);
        let hxy = x.powf(y - 1.0) * (1.0 + y * l);
        let hyy = x.powf(y) * l * l;
        let want = [[hxx, hxy], [hxy, hyy]];
        for i in 0..2 {
            for j in 0..2 {
                assert_near(
                    h[i][j],
                    want[i][j],
                    1e-12,
                    0.0,
                    &format!("pow H[{i}][{j}] at {p:?}"),
                );
            }
        }
        (v, vec![g.0, g.1], h)
    })
    .run(POINTS, |r| vec![r.uniform(0.1, 3.0), r.uniform(-2.5, 2.5)]);
}

#[test]
fn enzyme_div_range() {
    // d/dx (x / y) at y = 1e160 and 1e-160 stays representable (no y * y formed).
    let y = 1e160;
    assert_near(
        points::div_jvp(2.0, y, (1.0, 0.0)).1 * y,
        1.0,
        1e-12,
        0.0,
        "d/dx at 1e160",
    );
    assert_near(
        points::div_jvp(y, y, (0.0, 1.0)).1 * y,
        -1.0,
        1e-12,
        0.0,
        "d/dy at 1e160",
    );
    assert_near(
        points::div_grad(2.0, y).1 .0 * y,
        1.0,
        1e-12,
        0.0,
        "grad x at 1e160",
    );
    assert_near(
        points::div_grad(y, y).1 .1 * y,
        -1.0,
        1e-12,
        0.0,
        "grad y at 1e160",
    );
    let y = 1e-160;
    assert_near(
        points::div_jvp(2.0, y, (1.0, 0.0)).1 * y,
        1.0,
        1e-12,
        0.0,
        "d/dx at 1e-160",
    );
    assert_near(
        points::div_grad(2.0, y).1 .0 * y,
        1.0,
        1e-12,
        0.0,
        "grad x at 1e-160",
    );
    // Second order at y = 1e80: d²/dy² = 2x / y³, d²/dxdy = -1 / y².
    let y = 1e80;
    let (_, _, h) = points::div_hessian(1.0, y);
    assert_near(h[1][1] * (y * y) * y, 2.0, 1e-12, 0.0, "d²/dy² at 1e80");
    assert_near(h[0][1] * y * y, -1.0, 1e-12, 0.0, "d²/dxdy at 1e80");
    assert_near(h[1][0] * y * y, -1.0, 1e-12, 0.0, "d²/dydx at 1e80");
    assert_eq!(h[0][0], 0.0);
    two(
        "div",
        points::div,
        points::div_grad,
        points::div_jvp,
        points::div_grad_into,
    )
    .analytic(|p| vec![1.0 / p[1], -p[0] / (p[1] * p[1])])
    .hessian(hess2(points::div_hessian))
    .run(POINTS, away_from(2, -3.0, 3.0, 100.0, 0.0));
}

// ---------------------------------------------------------------------------------------------------
// Enzyme's guarded_normalize.c: three ways of guarding a normalisation.
// ---------------------------------------------------------------------------------------------------

pub mod normalize {
    use autodiff::differentiable;

    pub const EPS: f64 = 1.0e-12;

    /// The guard after the `sqrt`: `sqrt(0)` is evaluated at the origin, then a constant returned.
    #[differentiable]
    pub fn guard_after(v: &[f64; 3]) -> [f64; 3] {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if len <= EPS {
            return [1.0, 0.0, 0.0];
        }
        let inv = 1.0 / len;
        [v[0] * inv, v[1] * inv, v[2] * inv]
    }

    /// The guard before the `sqrt`, writing an output parameter as the original does.
    #[differentiable]
    pub fn guard_before(v: &[f64; 3], n: &mut [f64; 3]) {
        let sq = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if sq <= EPS * EPS {
            n[0] = 1.0;
            n[1] = 0.0;
            n[2] = 0.0;
            return;
        }
        let inv = 1.0 / sq.sqrt();
        for i in 0..3 {
            n[i] = v[i] * inv;
        }
    }

    /// The branchless floor `1 / max(|v|, eps)`.
    #[differentiable]
    pub fn guard_floor(v: &[f64; 3]) -> [f64; 3] {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let inv = 1.0 / len.max(EPS);
        [v[0] * inv, v[1] * inv, v[2] * inv]
    }
}

/// `(I - n nᵀ) / |v|`.
fn projector(v: &[f64]) -> Vec<Vec<f64>> {
    let len = norm(v);
    (0..3)
        .map(|r| {
            (0..3)
                .map(|c| ((r == c) as u8 as f64 - v[r] * v[c] / (len * len)) / len)
                .collect()
        })
        .collect()
}

fn arr3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

#[test]
fn enzyme_guarded_normalize() {
    let after = |v: &[f64]| normalize::guard_after_jacobian(&arr3(v));
    let before = |v: &[f64]| normalize::guard_before_jacobian(&arr3(v), &mut [0.0; 3]);
    let floor = |v: &[f64]| normalize::guard_floor_jacobian(&arr3(v));
    let jacobians: [(&str, &dyn Fn(&[f64]) -> Vec<Vec<f64>>); 3] =
        [("after", &after), ("before", &before), ("floor", &floor)];
    // Away from the origin every guard gives the projector, symmetric, with n in its null space.
    let mut rng = Lcg::new(seed_of("guarded_normalize"));
    let mut vs = vec![
        vec![3.0, -4.0, 12.0],
        vec![1.0, 0.0, 0.0],
        vec![-0.02, 0.005, 0.031],
    ];
    for _ in 0..POINTS {
        vs.push(rng.vec(3, -2.0, 2.0));
    }
    for v in &vs {
        let want = projector(v);
        let scale = 1.0 / norm(v);
        for (name, jac) in &jacobians {
            let j = jac(v);
            for r in 0..3 {
                assert_vec_near(&j[r], &want[r], 1e-13, &format!("{name} at {v:?}: row {r}"));
                let (mut row, mut col) = (0.0, 0.0);
                for c in 0..3 {
                    assert_near(
                        j[r][c],
                        j[c][r],
                        1e-14,
                        scale,
                        &format!("{name}: symmetric"),
                    );
                    row += j[r][c] * v[c];
                    col += j[c][r] * v[c];
                }
                assert_near(row, 0.0, 1e-13, scale * norm(v), &format!("{name}: J n"));
                assert_near(col, 0.0, 1e-13, scale * norm(v), &format!("{name}: nᵀ J"));
            }
        }
    }
    // vjp and jvp of each against central differences.
    check_vector(
        "guard_after",
        POINTS,
        range(3, -2.0, 2.0),
        &|x| normalize::guard_after(&arr3(x)).to_vec(),
        &|x, c| {
            let (v, g) = normalize::guard_after_vjp(&arr3(x), arr3(c));
            (v.to_vec(), g.to_vec())
        },
        &|x, t| {
            let (v, d) = normalize::guard_after_jvp(&arr3(x), arr3(t));
            (v.to_vec(), d.to_vec())
        },
        Some(&after),
    );
    check_vector(
        "guard_before",
        POINTS,
        range(3, -2.0, 2.0),
        &|x| {
            let mut n = [0.0; 3];
            normalize::guard_before(&arr3(x), &mut n);
            n.to_vec()
        },
        &|x, c| {
            let mut n = [GARBAGE; 3];
            let g = normalize::guard_before_vjp(&arr3(x), &mut n, &arr3(c));
            (n.to_vec(), g.to_vec())
        },
        &|x, t| {
            let mut n = [GARBAGE; 3];
            let mut d = [GARBAGE; 3];
            normalize::guard_before_jvp(&arr3(x), &mut n, arr3(t), &mut d);
            (n.to_vec(), d.to_vec())
        },
        Some(&before),
    );
    check_vector(
        "guard_floor",
        POINTS,
        range(3, -2.0, 2.0),
        &|x| normalize::guard_floor(&arr3(x)).to_vec(),
        &|x, c| {
            let (v, g) = normalize::guard_floor_vjp(&arr3(x), arr3(c));
            (v.to_vec(), g.to_vec())
        },
        &|x, t| {
            let (v, d) = normalize::guard_floor_jvp(&arr3(x), arr3(t));
            (v.to_vec(), d.to_vec())
        },
        Some(&floor),
    );
    // At the origin and just inside the guard the two branch guards give exactly zero: the NaN of
    // sqrt's slope at 0 does not leak out of the path not taken.
    for v in [[0.0; 3], [0.5 * normalize::EPS, 0.0, 0.0]] {
        for (name, jac) in &jacobians[..2] {
            let j = jac(&v);
            assert_eq!(j, vec![vec![0.0; 3]; 3], "{name} at {v:?}");
        }
        let c = [0.3, -0.7, 0.2];
        assert_eq!(
            normalize::guard_after_vjp(&v, c).1,
            [0.0; 3],
            "guard_after_vjp at {v:?}"
        );
        assert_eq!(
            normalize::guard_after_jvp(&v, c).1,
            [0.0; 3],
            "guard_after_jvp at {v:?}"
        );
        let mut n = [GARBAGE; 3];
        assert_eq!(normalize::guard_before_vjp(&v, &mut n, &c), [0.0; 3]);
    }
    // Just outside the guard the projector is fully present, 1e11 and more.
    let outside = [2.0 * normalize::EPS, 0.0, 0.0];
    let j = after(&outside);
    let want = projector(&outside);
    for r in 0..3 {
        assert_vec_near(&j[r], &want[r], 1e-13, "just outside the guard");
    }
    assert!(j[1][1].abs() > 1e11);
}

#[test]
fn enzyme_guarded_normalize_floor_at_the_origin() {
    // The branchless floor at the origin: finite, I / eps, as Enzyme gives. The path through `v * inv`
    // gives I / eps; the path through `len` carries the zero slope of the saturated `max` to the root,
    // whose infinite slope at 0 a zero adjoint (or tangent) does not meet (`rules::times`).
    let inv = 1.0 / normalize::EPS;
    let j = normalize::guard_floor_jacobian(&[0.0; 3]);
    for r in 0..3 {
        for c in 0..3 {
            assert_eq!(
                j[r][c],
                if r == c { inv } else { 0.0 },
                "floor's J at 0: {j:?}"
            );
        }
    }
    for k in 0..3 {
        let mut e = [0.0; 3];
        e[k] = 1.0;
        let (_, d) = normalize::guard_floor_jvp(&[0.0; 3], e);
        let (_, g) = normalize::guard_floor_vjp(&[0.0; 3], e);
        assert_eq!(d, e.map(|v| v * inv), "floor's jvp at 0");
        assert_eq!(g, e.map(|v| v * inv), "floor's vjp at 0");
    }
}

// ---------------------------------------------------------------------------------------------------
// Enzyme's euler_homogeneity.c and entropy_hessian.c: the compressible Euler equations.
// ---------------------------------------------------------------------------------------------------

pub mod euler {
    use autodiff::differentiable;

    pub const GAMMA: f64 = 1.4;

    /// The pressure of a stiffened gas, `p = (γ - 1)(ρE - |ρu|²/2ρ) - γ p∞`.
    #[differentiable(order = 2)]
    pub fn pressure(u: &[f64; 5], p_inf: f64) -> f64 {
        let kinetic = 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0];
        (GAMMA - 1.0) * (u[4] - kinetic) - GAMMA * p_inf
    }

    /// The normal flux `F(U) · n` of the Euler equations.
    #[differentiable(wrt(u))]
    pub fn flux(u: &[f64; 5], n: &[f64; 3], p_inf: f64) -> [f64; 5] {
        let p = pressure(u, p_inf);
        let un = (u[1] * n[0] + u[2] * n[1] + u[3] * n[2]) / u[0];
        [
            u[0] * un,
            u[1] * un + p * n[0],
            u[2] * un + p * n[1],
            u[3] * un + p * n[2],
            (u[4] + p) * un,
        ]
    }

    /// Harten's entropy `η(U) = -ρ s / (γ - 1)`, `s = ln p - γ ln ρ`.
    #[differentiable(order = 2)]
    pub fn entropy(u: &[f64; 5]) -> f64 {
        let p = pressure(u, 0.0);
        let s = p.ln() - GAMMA * u[0].ln();
        -u[0] * s / (GAMMA - 1.0)
    }

    /// The entropy variables, the closed form of `∇η`.
    #[differentiable]
    pub fn entropy_variables(u: &[f64; 5]) -> [f64; 5] {
        let rho = u[0];
        let (vx, vy, vz) = (u[1] / rho, u[2] / rho, u[3] / rho);
        let p = pressure(u, 0.0);
        let beta = rho / (2.0 * p);
        let s = p.ln() - GAMMA * rho.ln();
        [
            (GAMMA - s) / (GAMMA - 1.0) - beta * (vx * vx + vy * vy + vz * vz),
            2.0 * beta * vx,
            2.0 * beta * vy,
            2.0 * beta * vz,
            -2.0 * beta,
        ]
    }

    pub fn from_primitive(rho: f64, v: [f64; 3], p: f64, p_inf: f64) -> [f64; 5] {
        let e = (p + GAMMA * p_inf) / (GAMMA - 1.0)
            + 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        [rho, rho * v[0], rho * v[1], rho * v[2], e]
    }
}

fn euler_states(name: &str) -> Vec<([f64; 5], f64)> {
    let mut rng = Lcg::new(seed_of(name));
    (0..POINTS)
        .map(|_| {
            let rho = rng.uniform(0.1, 3.0);
            let v = [
                rng.uniform(-2.0, 2.0),
                rng.uniform(-2.0, 2.0),
                rng.uniform(-2.0, 2.0),
            ];
            let p = rng.uniform(0.2, 5.0);
            (euler::from_primitive(rho, v, p, 0.0), p)
        })
        .collect()
}

#[test]
fn enzyme_euler_homogeneity() {
    let mut rng = Lcg::new(seed_of("euler normals"));
    for (u0, p) in euler_states("euler_homogeneity") {
        let raw = rng.vec(3, -1.0, 1.0);
        let len = norm(&raw);
        let n = [raw[0] / len, raw[1] / len, raw[2] / len];
        for p_inf in [0.0, 0.5 * p] {
            // The state of the same primitives under this equation of state.
            let rho = u0[0];
            let v = [u0[1] / rho, u0[2] / rho, u0[3] / rho];
            let u = euler::from_primitive(rho, v, p, p_inf);
            let f = euler::flux(&u, &n, p_inf);
            let a = euler::flux_jacobian(&u, &n, p_inf);
            let au: Vec<f64> = (0..5)
                .map(|r| (0..5).map(|c| a[r][c] * u[c]).sum())
                .collect();
            // Ideal gas: A U = F. Stiffened: A U - F = (0, γp∞ n, γp∞ un).
            let gp = euler::GAMMA * p_inf;
            let un = dot(&v, &n);
            let dev = [0.0, gp * n[0], gp * n[1], gp * n[2], gp * un];
            let want: Vec<f64> = (0..5).map(|i| f[i] + dev[i]).collect();
            assert_vec_near(&au, &want, 1e-12, &format!("A U at {u:?}, p∞ = {p_inf}"));
            // The Jacobian against central differences, and vjp/jvp against it.
            check_vector(
                "euler flux",
                1,
                |_| u.to_vec(),
                &|x| euler::flux(&[x[0], x[1], x[2], x[3], x[4]], &n, p_inf).to_vec(),
                &|x, c| {
                    let x = [x[0], x[1], x[2], x[3], x[4]];
                    let (v, g) = euler::flux_vjp(&x, &n, p_inf, [c[0], c[1], c[2], c[3], c[4]]);
                    (v.to_vec(), g.to_vec())
                },
                &|x, t| {
                    let x = [x[0], x[1], x[2], x[3], x[4]];
                    let (v, d) = euler::flux_jvp(&x, &n, p_inf, [t[0], t[1], t[2], t[3], t[4]]);
                    (v.to_vec(), d.to_vec())
                },
                Some(&|x| euler::flux_jacobian(&[x[0], x[1], x[2], x[3], x[4]], &n, p_inf)),
            );
        }
    }
}

/// Cholesky without pivoting: `Some(smallest pivot)` exactly when `a` is positive definite.
fn cholesky_min_pivot(a: &[Vec<f64>]) -> Option<f64> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    let mut min = f64::INFINITY;
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            if i == j {
                if s <= 0.0 {
                    return None;
                }
                min = min.min(s);
                l[i][j] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    Some(min)
}

#[test]
fn enzyme_entropy_hessian() {
    let five = |x: &[f64]| [x[0], x[1], x[2], x[3], x[4]];
    for (u, _) in euler_states("entropy_hessian") {
        let at = format!("entropy at {u:?}");
        // 1. The gradient is the entropy variables.
        let (_, g) = euler::entropy_grad(&u);
        let w = euler::entropy_variables(&u);
        assert_vec_near(&g, &w, 1e-12, &format!("{at}: gradient"));
        let (_, gh, h) = euler::entropy_hessian(&u);
        assert_vec_near(&gh, &g, 1e-12, &format!("{at}: the Hessian's gradient"));
        // 2. Symmetric; 3. positive definite; 4. the Jacobian of the entropy variables.
        let j = euler::entropy_variables_jacobian(&u);
        let scale = h.iter().flatten().fold(0.0_f64, |m, v| m.max(v.abs()));
        for r in 0..5 {
            for c in 0..5 {
                assert_near(h[r][c], h[c][r], 1e-13, scale, &format!("{at}: symmetric"));
                assert_near(
                    h[r][c],
                    j[r][c],
                    1e-12,
                    scale,
                    &format!("{at}: H[{r}][{c}] = dw/dU"),
                );
            }
        }
        assert!(
            cholesky_min_pivot(&h).is_some(),
            "{at}: not positive definite: {h:?}"
        );
    }
    // The whole probe: grad, jvp, grad_into and the Hessian against central differences.
    Probe::new("entropy", move |x| euler::entropy(&five(x)))
        .grad(move |x| {
            let (v, g) = euler::entropy_grad(&five(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| euler::entropy_jvp(&five(x), five(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 5];
            let v = euler::entropy_grad_into(&five(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = euler::entropy_hessian(&five(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, |r| {
            let rho = r.uniform(0.3, 3.0);
            let v = [
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
            ];
            euler::from_primitive(rho, v, r.uniform(0.5, 5.0), 0.0).to_vec()
        });
}

// ---------------------------------------------------------------------------------------------------
// Enzyme: nested loops, eigensumsqdyn, mixedstruct1, gradient-struct-return.
// ---------------------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
pub struct Mixed {
    #[no_grad]
    pub count: usize,
    pub scale: f64,
    pub values: [f64; 3],
}

/// ReverseMode/mixedstruct1.c: a struct with an integer field beside the doubles.
#[differentiable(wrt(m))]
pub fn mixed_energy(m: &Mixed, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..m.count {
        s += m.scale * m.values[i] * x;
    }
    s * s
}

/// ReverseMode/gradient-struct-return.c: three doubles returned together.
#[differentiable]
pub fn struct_return(x: f64, y: f64) -> (f64, f64, f64) {
    (x * y, x.sin() * y, (x + y).exp())
}

#[test]
fn enzyme_loops_and_structs() {
    let mut rng = Lcg::new(seed_of("loops"));
    for _ in 0..POINTS {
        let x = rng.vec(5, -1.0, 1.0);
        let n = 1 + (rng.unit() * 5.0) as usize;
        let f = |y: &[f64]| enzyme::loops_triple(y, n);
        let (v, g) = enzyme::loops_triple_grad(&x, n);
        assert_near(v, f(&x), 1e-14, 0.0, "loops_triple's value");
        assert_vec_near(&g, &fd_gradient(&f, &x), 1e-6, "loops_triple");
        for i in n..5 {
            assert_eq!(g[i], 0.0, "an entry the loops never read");
        }
        let t = rng.vec(5, -1.0, 1.0);
        let (_, d) = enzyme::loops_triple_jvp(&x, n, t.clone());
        assert_near(d, dot(&g, &t), 1e-12, norm(&g), "loops_triple_jvp");
        let mut gi = vec![GARBAGE; 5];
        enzyme::loops_triple_grad_into(&x, n, &mut gi);
        assert_vec_near(&gi, &g, 1e-15, "loops_triple_grad_into");
        let (_, _, h) = enzyme::loops_triple_hessian(&x, n);
        let columns = fd_columns(&|y: &[f64]| enzyme::loops_triple_grad(y, n).1, &x);
        for i in 0..5 {
            for j in 0..5 {
                assert_near(h[i][j], columns[j][i], 1e-6, 1.0, "loops_triple's Hessian");
            }
        }

        // eigensumsqdyn: 2M, and a Hessian of 2I.
        let m: Vec<Vec<f64>> = (0..3).map(|_| rng.vec(4, -2.0, 2.0)).collect();
        let (v, g) = enzyme::sumsq_dyn_grad(&m);
        assert_near(
            v,
            m.iter().flatten().map(|a| a * a).sum(),
            1e-14,
            0.0,
            "sumsq",
        );
        for r in 0..3 {
            assert_vec_near(
                &g[r],
                &m[r].iter().map(|a| 2.0 * a).collect::<Vec<_>>(),
                1e-15,
                "2M",
            );
        }
        let (_, _, h) = enzyme::sumsq_dyn_hessian(&m);
        for i in 0..12 {
            for j in 0..12 {
                assert_eq!(h[i][j], if i == j { 2.0 } else { 0.0 });
            }
        }

        // mixedstruct1: s = scale * x * sum_{i < count} values[i]; f = s².
        let mixed = Mixed {
            count: 1 + (rng.unit() * 3.0) as usize,
            scale: rng.uniform(-1.0, 1.0),
            values: [
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            ],
        };
        let xv = rng.uniform(-2.0, 2.0);
        let (v, g) = mixed_energy_grad(&mixed, xv);
        let sum: f64 = mixed.values[..mixed.count].iter().sum();
        let s = mixed.scale * xv * sum;
        assert_near(v, s * s, 1e-14, 0.0, "mixed_energy");
        assert_eq!(g.count, mixed.count, "the integer field is copied");
        assert_near(g.scale, 2.0 * s * xv * sum, 1e-13, 0.0, "d/dscale");
        for i in 0..3 {
            let want = if i < mixed.count {
                2.0 * s * mixed.scale * xv
            } else {
                0.0
            };
            assert_near(g.values[i], want, 1e-13, 0.0, "d/dvalues");
        }

        // gradient-struct-return: the vjp of three outputs.
        let (a, b) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let c = (
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let (v, (ga, gb)) = struct_return_vjp(a, b, c);
        assert_eq!(v, struct_return(a, b));
        let e = (a + b).exp();
        assert_near(
            ga,
            c.0 * b + c.1 * a.cos() * b + c.2 * e,
            1e-13,
            0.0,
            "struct_return d/dx",
        );
        assert_near(
            gb,
            c.0 * a + c.1 * a.sin() + c.2 * e,
            1e-13,
            0.0,
            "struct_return d/dy",
        );
        let (_, d) = struct_return_jvp(a, b, (1.0, 0.0));
        assert_near(d.1, a.cos() * b, 1e-14, 0.0, "struct_return_jvp");
    }
}

// ---------------------------------------------------------------------------------------------------
// The minimal programs of what this probe found failing.
// ---------------------------------------------------------------------------------------------------

pub mod found {
    use autodiff::differentiable;

    /// An output parameter named `ret` (Enzyme's `insertsort_sum` shape): its cotangent `d_ret` was the
    /// same identifier as the returned value's, so the generated items did not compile.
    #[differentiable]
    pub fn write_ret(x: &[f64], ret: &mut f64) {
        *ret = x[0] * x[1];
    }

    /// A root computed before a branch whose taken side does not read it: the root's adjoint is 0, and
    /// `0 · inf` at 0 gave NaN (guarded_normalize.c's `guard_after` at the origin).
    #[differentiable(order = 2)]
    pub fn root_before_branch(x: f64) -> f64 {
        let len = x.sqrt();
        if len <= 1.0 {
            return 2.0 * x;
        }
        len
    }

    /// docs/conventions.md's example of the same.
    #[differentiable]
    pub fn normalize_x(v: [f64; 2]) -> f64 {
        let len = (v[0] * v[0] + v[1] * v[1]).sqrt();
        if len <= 1e-12 {
            return 1.0;
        }
        v[0] / len
    }

    /// The other infinite slopes at their ends, each unread on the branch taken.
    #[differentiable(order = 2)]
    pub fn ends_unread(x: f64) -> f64 {
        let a = x.asin() + x.acos() + x.atanh() + (x * x).cbrt() + x.acosh();
        if x >= 1.0 {
            return x * x;
        }
        a
    }

    /// A local closure whose body is an integer chain cast to a float (mycos.c's factorial as a Rust user
    /// writes it): the chain, made a block, ended the statement it was inlined into, and the macro
    /// panicked ("expected an expression"); and `.product::<i32>()` accumulated in a float.
    #[differentiable(order = 2)]
    pub fn integer_chains(x: f64, n: i32) -> f64 {
        let fact = |k: i32| (1..=k).product::<i32>() as f64;
        x * x * fact(n) + (1..=n).sum::<i32>() as f64 * x
    }

    /// The same with a float chain in the closure, then a method on it.
    #[differentiable]
    pub fn float_chain_in_closure(x: &[f64]) -> f64 {
        let s = |k: usize| x[..k].iter().sum::<f64>().sqrt();
        s(x.len()) * x.iter().product::<f64>()
    }

    /// docs/conventions.md's `sqrt_relu`, both ways.
    #[differentiable]
    pub fn sqrt_relu(x: f64) -> f64 {
        x.max(0.0).sqrt()
    }

    #[differentiable]
    pub fn sqrt_relu_branch(x: f64) -> f64 {
        if x > 0.0 {
            x.sqrt()
        } else {
            0.0
        }
    }
}

#[test]
fn found_output_named_ret() {
    let mut ret = GARBAGE;
    let g = found::write_ret_vjp(&[2.0, 3.0], &mut ret, 0.5);
    assert_eq!(ret, 6.0);
    assert_eq!(g, vec![1.5, 1.0]);
    let mut ret = GARBAGE;
    let mut d = GARBAGE;
    found::write_ret_jvp(&[2.0, 3.0], &mut ret, vec![1.0, -1.0], &mut d);
    assert_eq!((ret, d), (6.0, 1.0));
}

#[test]
fn found_zero_adjoint_of_an_unread_root() {
    for x in [0.0, -0.0, 0.25, 1.0] {
        assert_eq!(found::root_before_branch_grad(x), (2.0 * x, 2.0), "at {x}");
        assert_eq!(
            found::root_before_branch_jvp(x, 1.0),
            (2.0 * x, 2.0),
            "at {x}"
        );
        let mut g = GARBAGE;
        found::root_before_branch_grad_into(x, &mut g);
        assert_eq!(g, 2.0);
        assert_eq!(
            found::root_before_branch_derivatives(x),
            [2.0 * x, 2.0, 0.0],
            "at {x}"
        );
    }
    // Past the branch the root's own slope, 1 / (2 sqrt x), and -1 / (4 x^1.5).
    one(
        "root_before_branch",
        found::root_before_branch,
        found::root_before_branch_grad,
        found::root_before_branch_jvp,
        found::root_before_branch_grad_into,
    )
    .analytic(|x| vec![if x[0] <= 1.0 { 2.0 } else { 0.5 / x[0].sqrt() }])
    .hessian(hess1(
        found::root_before_branch_hessian,
        found::root_before_branch_derivatives,
    ))
    .run(POINTS, away_from(1, 0.0, 4.0, 10.0, 1.0));

    assert_eq!(found::normalize_x_grad([0.0, 0.0]), (1.0, [0.0, 0.0]));
    assert_eq!(found::normalize_x_jvp([0.0, 0.0], [1.0, 1.0]), (1.0, 0.0));
    let (_, g) = found::normalize_x_grad([3.0, 4.0]);
    assert_vec_near(
        &g,
        &[16.0 / 125.0, -12.0 / 125.0],
        1e-15,
        "normalize_x at (3, 4)",
    );

    // asin, acos, atanh at 1 and acosh at 1 (infinite slopes, values finite or not): all unread.
    assert_eq!(found::ends_unread_grad(1.0), (1.0, 2.0));
    assert_eq!(found::ends_unread_jvp(1.0, 1.0), (1.0, 2.0));
    assert_eq!(found::ends_unread_hessian(1.0).2, vec![vec![2.0]]);

    // The documented NaN across rules stays (as `jax.grad` gives); forward mode passes the zero
    // tangent through the root as zero, as `Dual` does.
    let (v, g) = found::sqrt_relu_grad(-1.0);
    assert_eq!(v, 0.0);
    assert!(g.is_nan());
    assert_eq!(found::sqrt_relu_jvp(-1.0, 1.0), (0.0, 0.0));
    assert_eq!(found::sqrt_relu_grad(4.0), (2.0, 0.25));
    assert_eq!(found::sqrt_relu_branch_grad(-1.0), (0.0, 0.0));
    assert_eq!(found::sqrt_relu_branch_grad(0.0), (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------------------
// ForwardDiff.jl / ChainRules.jl / JAX `lax_autodiff_test.py` style: scalar functions, their first three
// derivatives against the formulas, two-argument rules with both arguments active, and kinks.
// ---------------------------------------------------------------------------------------------------

pub mod scalar {
    use autodiff::differentiable;

    #[differentiable(order = 3)]
    pub fn exp_m1(x: f64) -> f64 {
        x.exp_m1()
    }
    #[differentiable(order = 3)]
    pub fn ln_1p(x: f64) -> f64 {
        x.ln_1p()
    }
    #[differentiable(order = 3)]
    pub fn tanh(x: f64) -> f64 {
        x.tanh()
    }
    #[differentiable(order = 3)]
    pub fn sinh(x: f64) -> f64 {
        x.sinh()
    }
    #[differentiable(order = 3)]
    pub fn cosh(x: f64) -> f64 {
        x.cosh()
    }
    #[differentiable(order = 3)]
    pub fn asinh(x: f64) -> f64 {
        x.asinh()
    }
    #[differentiable(order = 3)]
    pub fn acosh(x: f64) -> f64 {
        x.acosh()
    }
    #[differentiable(order = 3)]
    pub fn atanh(x: f64) -> f64 {
        x.atanh()
    }
    #[differentiable(order = 3)]
    pub fn asin(x: f64) -> f64 {
        x.asin()
    }
    #[differentiable(order = 3)]
    pub fn acos(x: f64) -> f64 {
        x.acos()
    }
    #[differentiable(order = 3)]
    pub fn atan(x: f64) -> f64 {
        x.atan()
    }
    #[differentiable(order = 3)]
    pub fn cbrt(x: f64) -> f64 {
        x.cbrt()
    }
    #[differentiable(order = 3)]
    pub fn sqrt(x: f64) -> f64 {
        x.sqrt()
    }
    #[differentiable(order = 3)]
    pub fn recip(x: f64) -> f64 {
        x.recip()
    }
    #[differentiable(order = 3)]
    pub fn exp2(x: f64) -> f64 {
        x.exp2()
    }
    #[differentiable(order = 3)]
    pub fn log2(x: f64) -> f64 {
        x.log2()
    }
    #[differentiable(order = 3)]
    pub fn log10(x: f64) -> f64 {
        x.log10()
    }
    #[differentiable(order = 3)]
    pub fn tan(x: f64) -> f64 {
        x.tan()
    }
    /// ChainRules' `log(b, x)` with the base fixed.
    #[differentiable(order = 3)]
    pub fn log_base3(x: f64) -> f64 {
        x.log(3.0)
    }
    /// An integer power with the exponent a run-time argument.
    #[differentiable(order = 3)]
    pub fn ipow(x: f64, n: i32) -> f64 {
        x.powi(n)
    }

    /// `lax.atan2` with both arguments active.
    #[differentiable(order = 2)]
    pub fn atan2(y: f64, x: f64) -> f64 {
        y.atan2(x)
    }
    /// ChainRules' `hypot`.
    #[differentiable(order = 2)]
    pub fn hypot(x: f64, y: f64) -> f64 {
        x.hypot(y)
    }
    /// `mul_add` with all three active.
    #[differentiable(order = 2)]
    pub fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c) * a
    }
    /// `max + min = x + y`, whatever the tie rule, if it splits evenly.
    #[differentiable(order = 2)]
    pub fn max_plus_min(x: f64, y: f64) -> f64 {
        x.max(y) + x.min(y)
    }
    #[differentiable]
    pub fn clamp3(x: f64, lo: f64, hi: f64) -> f64 {
        x.clamp(lo, hi)
    }
    /// `sign(x) * x = |x|`, with `signum` a constant (slope 0).
    #[differentiable(order = 2)]
    pub fn sign_times(x: f64) -> f64 {
        x.signum() * x
    }
    /// `sqrt(x * x)`: `|x|` but through an infinite slope at 0.
    #[differentiable]
    pub fn sqrt_square(x: f64) -> f64 {
        (x * x).sqrt()
    }
    /// `jnp.max` over a slice written as a fold of pairwise `max`.
    #[differentiable]
    pub fn fold_max(x: &[f64]) -> f64 {
        x.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v))
    }
    /// `jnp.prod`, with a zero among the factors.
    #[differentiable(order = 2)]
    pub fn prod(x: &[f64]) -> f64 {
        x.iter().product()
    }
    /// `jnp.cumprod` summed with weights.
    #[differentiable(order = 2)]
    pub fn cumprod_weighted(x: &[f64]) -> f64 {
        let mut p = 1.0;
        let mut s = 0.0;
        for i in 0..x.len() {
            p *= x[i];
            s += p * (i + 1) as f64;
        }
        s
    }
}

type Derivs = fn(f64) -> [f64; 4];

#[test]
fn chainrules_scalar_rules_to_the_third_derivative() {
    // (name, f_derivatives, f', f'', f''', sampling interval)
    let cases: &[(
        &str,
        Derivs,
        fn(f64) -> f64,
        fn(f64) -> f64,
        fn(f64) -> f64,
        f64,
        f64,
    )] = &[
        (
            "exp_m1",
            scalar::exp_m1_derivatives,
            |x| x.exp(),
            |x| x.exp(),
            |x| x.exp(),
            -3.0,
            3.0,
        ),
        (
            "ln_1p",
            scalar::ln_1p_derivatives,
            |x| 1.0 / (1.0 + x),
            |x| -1.0 / (1.0 + x).powi(2),
            |x| 2.0 / (1.0 + x).powi(3),
            -0.9,
            3.0,
        ),
        (
            "tanh",
            scalar::tanh_derivatives,
            |x| 1.0 - x.tanh().powi(2),
            |x| -2.0 * x.tanh() * (1.0 - x.tanh().powi(2)),
            |x| {
                let t = x.tanh();
                let s = 1.0 - t * t;
                -2.0 * s * s + 4.0 * t * t * s
            },
            -3.0,
            3.0,
        ),
        (
            "sinh",
            scalar::sinh_derivatives,
            |x| x.cosh(),
            |x| x.sinh(),
            |x| x.cosh(),
            -3.0,
            3.0,
        ),
        (
            "cosh",
            scalar::cosh_derivatives,
            |x| x.sinh(),
            |x| x.cosh(),
            |x| x.sinh(),
            -3.0,
            3.0,
        ),
        (
            "asinh",
            scalar::asinh_derivatives,
            |x| 1.0 / (x * x + 1.0).sqrt(),
            |x| -x / (x * x + 1.0).powf(1.5),
            |x| (2.0 * x * x - 1.0) / (x * x + 1.0).powf(2.5),
            -3.0,
            3.0,
        ),
        (
            "acosh",
            scalar::acosh_derivatives,
            |x| 1.0 / (x * x - 1.0).sqrt(),
            |x| -x / (x * x - 1.0).powf(1.5),
            |x| (2.0 * x * x + 1.0) / (x * x - 1.0).powf(2.5),
            1.1,
            4.0,
        ),
        (
            "atanh",
            scalar::atanh_derivatives,
            |x| 1.0 / (1.0 - x * x),
            |x| 2.0 * x / (1.0 - x * x).powi(2),
            |x| (2.0 + 6.0 * x * x) / (1.0 - x * x).powi(3),
            -0.9,
            0.9,
        ),
        (
            "asin",
            scalar::asin_derivatives,
            |x| 1.0 / (1.0 - x * x).sqrt(),
            |x| x / (1.0 - x * x).powf(1.5),
            |x| (1.0 + 2.0 * x * x) / (1.0 - x * x).powf(2.5),
            -0.9,
            0.9,
        ),
        (
            "acos",
            scalar::acos_derivatives,
            |x| -1.0 / (1.0 - x * x).sqrt(),
            |x| -x / (1.0 - x * x).powf(1.5),
            |x| -(1.0 + 2.0 * x * x) / (1.0 - x * x).powf(2.5),
            -0.9,
            0.9,
        ),
        (
            "atan",
            scalar::atan_derivatives,
            |x| 1.0 / (1.0 + x * x),
            |x| -2.0 * x / (1.0 + x * x).powi(2),
            |x| (6.0 * x * x - 2.0) / (1.0 + x * x).powi(3),
            -3.0,
            3.0,
        ),
        (
            "cbrt",
            scalar::cbrt_derivatives,
            |x| x.cbrt().powi(-2) / 3.0,
            |x| -2.0 / 9.0 * x.cbrt().powi(-5),
            |x| 10.0 / 27.0 * x.cbrt().powi(-8),
            0.1,
            3.0,
        ),
        (
            "sqrt",
            scalar::sqrt_derivatives,
            |x| 0.5 / x.sqrt(),
            |x| -0.25 * x.powf(-1.5),
            |x| 0.375 * x.powf(-2.5),
            0.1,
            3.0,
        ),
        (
            "recip",
            scalar::recip_derivatives,
            |x| -1.0 / (x * x),
            |x| 2.0 / (x * x * x),
            |x| -6.0 / x.powi(4),
            0.2,
            3.0,
        ),
        (
            "exp2",
            scalar::exp2_derivatives,
            |x| x.exp2() * std::f64::consts::LN_2,
            |x| x.exp2() * std::f64::consts::LN_2.powi(2),
            |x| x.exp2() * std::f64::consts::LN_2.powi(3),
            -3.0,
            3.0,
        ),
        (
            "log2",
            scalar::log2_derivatives,
            |x| 1.0 / (x * std::f64::consts::LN_2),
            |x| -1.0 / (x * x * std::f64::consts::LN_2),
            |x| 2.0 / (x * x * x * std::f64::consts::LN_2),
            0.1,
            3.0,
        ),
        (
            "log10",
            scalar::log10_derivatives,
            |x| 1.0 / (x * std::f64::consts::LN_10),
            |x| -1.0 / (x * x * std::f64::consts::LN_10),
            |x| 2.0 / (x * x * x * std::f64::consts::LN_10),
            0.1,
            3.0,
        ),
        (
            "tan",
            scalar::tan_derivatives,
            |x| 1.0 + x.tan().powi(2),
            |x| 2.0 * x.tan() * (1.0 + x.tan().powi(2)),
            |x| {
                let t = x.tan();
                let s = 1.0 + t * t;
                2.0 * s * s + 4.0 * t * t * s
            },
            -1.2,
            1.2,
        ),
        (
            "log_base3",
            scalar::log_base3_derivatives,
            |x| 1.0 / (x * 3f64.ln()),
            |x| -1.0 / (x * x * 3f64.ln()),
            |x| 2.0 / (x * x * x * 3f64.ln()),
            0.1,
            3.0,
        ),
    ];
    for &(name, d, d1, d2, d3, lo, hi) in cases {
        let mut rng = Lcg::new(seed_of(name));
        for _ in 0..POINTS {
            let x = rng.uniform(lo, hi);
            let ds = d(x);
            let at = format!("{name} at {x}");
            for (k, want) in [(1, d1(x)), (2, d2(x)), (3, d3(x))] {
                assert_near(ds[k], want, 1e-11, 0.0, &format!("{at}: derivative {k}"));
            }
        }
        check_third(name, d, POINTS, lo, hi);
    }
    // The generated first-order items and the Hessians of a few, through the probe.
    type Items = (
        &'static str,
        fn(f64) -> f64,
        fn(f64) -> (f64, f64),
        fn(f64, f64) -> (f64, f64),
        fn(f64, &mut f64) -> f64,
        fn(f64) -> (f64, f64, Vec<Vec<f64>>),
        Derivs,
        f64,
    );
    use scalar::*;
    let items: [Items; 4] = [
        (
            "exp_m1",
            exp_m1,
            exp_m1_grad,
            exp_m1_jvp,
            exp_m1_grad_into,
            exp_m1_hessian,
            exp_m1_derivatives,
            -3.0,
        ),
        (
            "ln_1p",
            ln_1p,
            ln_1p_grad,
            ln_1p_jvp,
            ln_1p_grad_into,
            ln_1p_hessian,
            ln_1p_derivatives,
            -0.9,
        ),
        (
            "tanh",
            tanh,
            tanh_grad,
            tanh_jvp,
            tanh_grad_into,
            tanh_hessian,
            tanh_derivatives,
            -3.0,
        ),
        (
            "sinh",
            sinh,
            sinh_grad,
            sinh_jvp,
            sinh_grad_into,
            sinh_hessian,
            sinh_derivatives,
            -3.0,
        ),
    ];
    for (name, f, g, j, gi, h, d, lo) in items {
        one(name, f, g, j, gi)
            .hessian(hess1(h, d))
            .run(POINTS, range(1, lo, 3.0));
    }
    // Small arguments, where `exp(x) - 1` and `ln(1 + x)` would lose the digits: the slopes are
    // exp(x) and 1 / (1 + x) to the last bit.
    for x in [1e-300, 1e-20, -1e-12, 1e-8] {
        assert_eq!(scalar::exp_m1_grad(x).1, x.exp());
        assert_eq!(scalar::ln_1p_grad(x).1, 1.0 / (1.0 + x));
        assert_eq!(scalar::tanh_grad(x).1, 1.0 - x.tanh() * x.tanh());
    }
}

#[test]
fn forwarddiff_integer_powers_and_roots_near_zero() {
    // x^n for n in -3..=4: n x^(n-1), n (n-1) x^(n-2), n (n-1) (n-2) x^(n-3); at 0 for n >= 0 the
    // integer_pow values (0 slope for n = 0, docs/conventions.md).
    let mut rng = Lcg::new(seed_of("ipow"));
    for n in -3..=4_i32 {
        let nf = n as f64;
        for _ in 0..POINTS {
            let x = rng.uniform(0.2, 2.5) * if rng.unit() < 0.5 { -1.0 } else { 1.0 };
            let d = scalar::ipow_derivatives(x, n);
            let at = format!("x^{n} at {x}");
            assert_near(d[1], nf * x.powi(n - 1), 1e-12, 0.0, &at);
            assert_near(d[2], nf * (nf - 1.0) * x.powi(n - 2), 1e-12, 0.0, &at);
            assert_near(
                d[3],
                nf * (nf - 1.0) * (nf - 2.0) * x.powi(n - 3),
                1e-12,
                0.0,
                &at,
            );
            let (_, g) = scalar::ipow_grad(x, n);
            assert_near(
                g,
                fd1(&|y| y.powi(n), x, 1e-6),
                1e-7,
                0.0,
                &format!("{at}: differences"),
            );
            let (_, t) = scalar::ipow_jvp(x, n, 0.5);
            assert_eq!(t, 0.5 * g);
        }
        if n >= 0 {
            let d = scalar::ipow_derivatives(0.0, n);
            let fact = |k: i32| (1..=k).product::<i32>() as f64;
            for k in 1..4 {
                let want = if k == n { fact(n) } else { 0.0 };
                assert_eq!(d[k as usize], want, "x^{n} derivative {k} at 0");
            }
        }
    }
    // sqrt near 0: the formula to the last bits down to 1e-300, +inf at 0 (JAX, PyTorch).
    for x in [1e-300, 1e-100, 1e-20, 1e-10] {
        let (v, g) = scalar::sqrt_grad(x);
        assert_eq!(v, x.sqrt());
        assert_near(g, 0.5 / x.sqrt(), 1e-15, 0.0, &format!("sqrt' at {x}"));
        assert_near(
            scalar::sqrt_jvp(x, 1.0).1,
            0.5 / x.sqrt(),
            1e-15,
            0.0,
            "sqrt_jvp",
        );
    }
    assert_eq!(scalar::sqrt_grad(0.0).1, f64::INFINITY);
    assert_eq!(scalar::cbrt_grad(0.0).1, f64::INFINITY);
    // sqrt(x²) at 0: the infinite slope of the root times the zero slope of the square is NaN across
    // two rules, as `jax.grad(lambda x: jnp.sqrt(x * x))(0.)`; elsewhere sign(x).
    assert!(scalar::sqrt_square_grad(0.0).1.is_nan());
    for x in [-2.0, -1e-3, 1e-3, 3.0] {
        assert_eq!(scalar::sqrt_square_grad(x).1, x.signum());
    }
}

#[test]
fn lax_two_argument_rules_both_active() {
    // atan2(y, x): (x, -y) / r²; Hessian [[-2xy, y² - x²], [y² - x², 2xy]] / r⁴.
    two(
        "atan2",
        scalar::atan2,
        scalar::atan2_grad,
        scalar::atan2_jvp,
        scalar::atan2_grad_into,
    )
    .analytic(|p| {
        let (y, x) = (p[0], p[1]);
        let r2 = x * x + y * y;
        vec![x / r2, -y / r2]
    })
    .hessian(|p| {
        let (y, x) = (p[0], p[1]);
        let (v, g, h) = scalar::atan2_hessian(y, x);
        let r4 = (x * x + y * y).powi(2);
        let want = [
            [-2.0 * x * y / r4, (y * y - x * x) / r4],
            [(y * y - x * x) / r4, 2.0 * x * y / r4],
        ];
        for i in 0..2 {
            for j in 0..2 {
                assert_near(
                    h[i][j],
                    want[i][j],
                    1e-12,
                    0.0,
                    &format!("atan2 H[{i}][{j}] at {p:?}"),
                );
            }
        }
        (v, vec![g.0, g.1], h)
    })
    .run(POINTS, |r| loop {
        let p = r.vec(2, -2.0, 2.0);
        if norm(&p) > 0.2 {
            break p;
        }
    });
    // All four quadrants and the axes, where atan2 jumps by 2π but its slope does not.
    for (y, x) in [
        (1.0, 0.0),
        (0.0, 1.0),
        (-1.0, 0.0),
        (0.0, -1.0),
        (1e-3, -1.0),
        (-1e-3, -1.0),
    ] {
        let (_, g) = scalar::atan2_grad(y, x);
        let r2 = x * x + y * y;
        assert_eq!(g, (x / r2, -y / r2), "atan2 at ({y}, {x})");
    }
    // hypot(x, y): (x, y) / h; Hessian [[y², -xy], [-xy, x²]] / h³.
    two(
        "hypot",
        scalar::hypot,
        scalar::hypot_grad,
        scalar::hypot_jvp,
        scalar::hypot_grad_into,
    )
    .analytic(|p| {
        let h = p[0].hypot(p[1]);
        vec![p[0] / h, p[1] / h]
    })
    .hessian(|p| {
        let (x, y) = (p[0], p[1]);
        let (v, g, hm) = scalar::hypot_hessian(x, y);
        let h3 = x.hypot(y).powi(3);
        let want = [[y * y / h3, -x * y / h3], [-x * y / h3, x * x / h3]];
        for i in 0..2 {
            for j in 0..2 {
                assert_near(
                    hm[i][j],
                    want[i][j],
                    1e-12,
                    0.0,
                    &format!("hypot H[{i}][{j}] at {p:?}"),
                );
            }
        }
        (v, vec![g.0, g.1], hm)
    })
    .run(POINTS, |r| loop {
        let p = r.vec(2, -2.0, 2.0);
        if norm(&p) > 0.2 {
            break p;
        }
    });
    // hypot of huge and tiny arguments: the slope stays (x, y) / h without overflow.
    let (_, g) = scalar::hypot_grad(3e200, 4e200);
    assert_vec_near(&[g.0, g.1], &[0.6, 0.8], 1e-15, "hypot at 1e200");
    let (_, g) = scalar::hypot_grad(3e-200, 4e-200);
    assert_vec_near(&[g.0, g.1], &[0.6, 0.8], 1e-15, "hypot at 1e-200");
    // (a b + c) a: (2ab + c, a², a), Hessian [[2b, 2a, 1], [2a, 0, 0], [1, 0, 0]].
    three(
        "fma",
        scalar::fma,
        scalar::fma_grad,
        scalar::fma_jvp,
        scalar::fma_grad_into,
    )
    .analytic(|p| vec![2.0 * p[0] * p[1] + p[2], p[0] * p[0], p[0]])
    .hessian(hess3(scalar::fma_hessian))
    .run(POINTS, range(3, -2.0, 2.0));
}

#[test]
fn jax_kinks_follow_docs_conventions() {
    // max + min = x + y: slope (1, 1) everywhere, ties included (0.5 + 0.5 each), Hessian 0.
    for (x, y) in [(1.0, 1.0), (0.0, 0.0), (-2.0, 3.0), (3.0, -2.0)] {
        assert_eq!(
            scalar::max_plus_min_grad(x, y).1,
            (1.0, 1.0),
            "at ({x}, {y})"
        );
        assert_eq!(scalar::max_plus_min_jvp(x, y, (0.25, 0.5)).1, 0.75);
        assert_eq!(scalar::max_plus_min_hessian(x, y).2, vec![vec![0.0; 2]; 2]);
    }
    // clamp(x, lo, hi) as jnp.clip: the table of docs/conventions.md.
    assert_eq!(scalar::clamp3_grad(0.5, 0.0, 1.0).1, (1.0, 0.0, 0.0));
    assert_eq!(scalar::clamp3_grad(-1.0, 0.0, 1.0).1, (0.0, 1.0, 0.0));
    assert_eq!(scalar::clamp3_grad(2.0, 0.0, 1.0).1, (0.0, 0.0, 1.0));
    assert_eq!(scalar::clamp3_grad(0.0, 0.0, 1.0).1, (0.5, 0.5, 0.0));
    assert_eq!(scalar::clamp3_grad(1.0, 0.0, 1.0).1, (0.5, 0.0, 0.5));
    assert_eq!(scalar::clamp3_jvp(1.0, 0.0, 1.0, (1.0, 0.0, 1.0)).1, 1.0);
    // signum is a constant: sign(x) * x has slope sign(x), and at 0 Rust's signum(±0) = ±1.
    assert_eq!(scalar::sign_times_grad(0.0).1, 1.0);
    assert_eq!(scalar::sign_times_grad(-0.0).1, -1.0);
    assert_eq!(scalar::sign_times_grad(-2.0).1, -1.0);
    assert_eq!(scalar::sign_times_hessian(1.5).2, vec![vec![0.0]]);
    // A fold of pairwise max over three tied values: each `max` splits its tie in half, so the last
    // element gets 1/2 and the first two 1/4 (jnp.max splits evenly, 1/3 each: write the mean of the
    // tied maxima as multivecmaxC.c does, `reduce_max` above, for that).
    let (_, g) = scalar::fold_max_grad(&[3.0, 3.0, 3.0]);
    assert_eq!(g, [0.25, 0.25, 0.5]);
    let (_, g) = scalar::fold_max_grad(&[1.0, 5.0, 2.0]);
    assert_eq!(g, [0.0, 1.0, 0.0]);
}

#[test]
fn lax_prod_and_cumprod_with_zeros() {
    // d prod / dx_i = prod_{j != i} x_j, also where a factor (or two) is 0.
    let exact = |x: &[f64]| -> Vec<f64> {
        (0..x.len())
            .map(|i| (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product())
            .collect()
    };
    for x in [
        vec![2.0, 0.0, 3.0, -1.5],
        vec![0.0, 0.0, 4.0],
        vec![0.0],
        vec![1.0, 2.0, 0.0],
    ] {
        let (v, g) = scalar::prod_grad(&x);
        assert_eq!(v, x.iter().product::<f64>());
        assert_vec_near(&g, &exact(&x), 1e-15, &format!("prod at {x:?}"));
        let t: Vec<f64> = (0..x.len()).map(|i| 0.5 + i as f64).collect();
        let (_, d) = scalar::prod_jvp(&x, t.clone());
        assert_near(
            d,
            dot(&exact(&x), &t),
            1e-15,
            1.0,
            &format!("prod_jvp at {x:?}"),
        );
        let (_, _, h) = scalar::prod_hessian(&x);
        for i in 0..x.len() {
            for j in 0..x.len() {
                let want: f64 = if i == j {
                    0.0
                } else {
                    (0..x.len())
                        .filter(|&k| k != i && k != j)
                        .map(|k| x[k])
                        .product()
                };
                assert_near(
                    h[i][j],
                    want,
                    1e-15,
                    1.0,
                    &format!("prod H[{i}][{j}] at {x:?}"),
                );
            }
        }
        let (_, g) = scalar::cumprod_weighted_grad(&x);
        let f = |y: &[f64]| scalar::cumprod_weighted(y);
        assert_vec_near(&g, &fd_gradient(&f, &x), 1e-8, &format!("cumprod at {x:?}"));
    }
    slice(
        "prod",
        scalar::prod,
        scalar::prod_grad,
        scalar::prod_jvp,
        scalar::prod_grad_into,
    )
    .analytic(exact)
    .hessian(scalar::prod_hessian)
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "cumprod_weighted",
        scalar::cumprod_weighted,
        scalar::cumprod_weighted_grad,
        scalar::cumprod_weighted_jvp,
        scalar::cumprod_weighted_grad_into,
    )
    .hessian(scalar::cumprod_weighted_hessian)
    .run(POINTS, range(5, -2.0, 2.0));
}

// ---------------------------------------------------------------------------------------------------
// Tapenade's validation (`-context`): the tangent against divided differences and the adjoint by the
// dot-product test `<J x, p> = <x, Jᵀ p>`, on the shapes of its tutorials: a Lorenz-63 trajectory by
// RK4 (the adjoint-of-a-model test), a 1-D upwind advection step with a minmod limiter, periodic.
// ---------------------------------------------------------------------------------------------------

pub mod tapenade {
    use autodiff::differentiable;

    /// The Lorenz-63 right-hand side, written into an output.
    #[differentiable]
    pub fn lorenz(s: &[f64; 3], p: &[f64; 3], ds: &mut [f64; 3]) {
        ds[0] = p[0] * (s[1] - s[0]);
        ds[1] = s[0] * (p[1] - s[2]) - s[1];
        ds[2] = s[0] * s[1] - p[2] * s[2];
    }

    /// `steps` RK4 steps of size `h` from `s0`, with the parameters `p` active too.
    #[differentiable(wrt(s0, p))]
    pub fn trajectory(s0: &[f64; 3], p: &[f64; 3], h: f64, steps: usize) -> [f64; 3] {
        let mut s = *s0;
        let mut k1 = [0.0; 3];
        let mut k2 = [0.0; 3];
        let mut k3 = [0.0; 3];
        let mut k4 = [0.0; 3];
        let mut t = [0.0; 3];
        for _ in 0..steps {
            lorenz(&s, p, &mut k1);
            for i in 0..3 {
                t[i] = s[i] + 0.5 * h * k1[i];
            }
            lorenz(&t, p, &mut k2);
            for i in 0..3 {
                t[i] = s[i] + 0.5 * h * k2[i];
            }
            lorenz(&t, p, &mut k3);
            for i in 0..3 {
                t[i] = s[i] + h * k3[i];
            }
            lorenz(&t, p, &mut k4);
            for i in 0..3 {
                s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        s
    }

    /// The minmod limiter.
    #[differentiable]
    pub fn minmod(a: f64, b: f64) -> f64 {
        if a * b <= 0.0 {
            0.0
        } else if a.abs() < b.abs() {
            a
        } else {
            b
        }
    }

    /// `steps` steps of second-order upwind advection (Courant number `c`, active) with a minmod
    /// limiter on a periodic grid; the result is the final field.
    #[differentiable]
    pub fn advect(u0: &[f64], c: f64, steps: usize) -> Vec<f64> {
        let n = u0.len();
        let mut u = vec![0.0; n];
        let mut next = vec![0.0; n];
        for i in 0..n {
            u[i] = u0[i];
        }
        for _ in 0..steps {
            for i in 0..n {
                let im1 = (i + n - 1) % n;
                let im2 = (i + n - 2) % n;
                let ip1 = (i + 1) % n;
                let slope_i = minmod(u[i] - u[im1], u[ip1] - u[i]);
                let slope_m = minmod(u[im1] - u[im2], u[i] - u[im1]);
                let face_i = u[i] + 0.5 * (1.0 - c) * slope_i;
                let face_m = u[im1] + 0.5 * (1.0 - c) * slope_m;
                next[i] = u[i] - c * (face_i - face_m);
            }
            for i in 0..n {
                u[i] = next[i];
            }
        }
        u
    }
}

#[test]
fn tapenade_lorenz_dot_product_test() {
    let (h, steps) = (0.01, 200);
    let three3 = |x: &[f64]| ([x[0], x[1], x[2]], [x[3], x[4], x[5]]);
    check_vector(
        "lorenz trajectory",
        10,
        |r| {
            let mut x = r.vec(3, -5.0, 5.0);
            x.extend([
                r.uniform(9.0, 11.0),
                r.uniform(27.0, 29.0),
                r.uniform(2.5, 2.8),
            ]);
            x
        },
        &|x| {
            let (s, p) = three3(x);
            tapenade::trajectory(&s, &p, h, steps).to_vec()
        },
        &|x, c| {
            let (s, p) = three3(x);
            let (v, (gs, gp)) = tapenade::trajectory_vjp(&s, &p, h, steps, [c[0], c[1], c[2]]);
            (v.to_vec(), [gs, gp].concat())
        },
        &|x, t| {
            let (s, p) = three3(x);
            let tangent = ([t[0], t[1], t[2]], [t[3], t[4], t[5]]);
            let (v, d) = tapenade::trajectory_jvp(&s, &p, h, steps, tangent);
            (v.to_vec(), d.to_vec())
        },
        Some(&|x| {
            let (s, p) = three3(x);
            tapenade::trajectory_jacobian(&s, &p, h, steps)
        }),
    );
}

#[test]
fn tapenade_advection_dot_product_test() {
    let (n, steps) = (12, 6);
    // Inputs (u0, c); a smooth bump plus noise keeps the limiter's branches away from their switches
    // for central differences at almost every draw.
    check_vector(
        "advection",
        POINTS,
        |r| {
            let mut x: Vec<f64> = (0..n)
                .map(|i| (2.0 * std::f64::consts::PI * i as f64 / n as f64).sin() + 0.3 * r.unit())
                .collect();
            x.push(r.uniform(0.2, 0.8));
            x
        },
        &|x| tapenade::advect(&x[..n], x[n], steps),
        &|x, c| {
            let (v, (gu, gc)) = tapenade::advect_vjp(&x[..n], x[n], steps, c.to_vec());
            (v, [gu, vec![gc]].concat())
        },
        &|x, t| tapenade::advect_jvp(&x[..n], x[n], steps, (t[..n].to_vec(), t[n])),
        Some(&|x| tapenade::advect_jacobian(&x[..n], x[n], steps)),
    );
    // Conservation: the sum of the field is invariant, so the gradient of the total is all ones in
    // u0 and zero in c, exactly as the adjoint of a conservative scheme must give.
    let mut rng = Lcg::new(seed_of("advection sum"));
    for _ in 0..POINTS {
        let u0 = rng.vec(n, -1.0, 1.0);
        let c = rng.uniform(0.1, 0.9);
        let (_, (gu, gc)) = tapenade::advect_vjp(&u0, c, steps, vec![1.0; n]);
        assert_vec_near(&gu, &vec![1.0; n], 1e-12, "d sum / d u0");
        assert_near(gc, 0.0, 1e-12, 1.0, "d sum / d c");
    }
}

#[test]
fn found_integer_chains_in_closures() {
    let mut rng = Lcg::new(seed_of("integer_chains"));
    for n in 0..6 {
        let fact: f64 = (1..=n).product::<i32>() as f64;
        let tri = (1..=n).sum::<i32>() as f64;
        for _ in 0..5 {
            let x = rng.uniform(-2.0, 2.0);
            let (v, g) = found::integer_chains_grad(x, n);
            assert_near(v, x * x * fact + tri * x, 1e-15, 0.0, "integer_chains");
            assert_near(g, 2.0 * x * fact + tri, 1e-15, 0.0, "integer_chains'");
            assert_eq!(
                found::integer_chains_hessian(x, n).2,
                vec![vec![2.0 * fact]]
            );
        }
    }
    slice(
        "float_chain_in_closure",
        found::float_chain_in_closure,
        found::float_chain_in_closure_grad,
        found::float_chain_in_closure_jvp,
        found::float_chain_in_closure_grad_into,
    )
    .run(POINTS, range(4, 0.2, 2.0));
}
