//! Local arrays stored whole (`reverse::plan::ArraySnapshot`): a loop body writes a local array whole
//! in a loop, later loops of the body read it, and the next iteration overwrites it. The forward sweep
//! stores the array once after the last loop that writes it before those reads, and the reverse sweep
//! reads the elements from that copy instead of one stored value per read. Each case checks the value,
//! the gradient against central differences and against `f_jvp` (forward mode, which stores nothing)
//! over seeded random inputs, and the simpler ones against a gradient derived by hand. The adversarial
//! ones overwrite the array partly or whole between reads, leave the loop early (`break`, `continue`),
//! write it under a branch, in nested loops, read it before it is written in an iteration, lend it to a
//! call, and take its length from a parameter, zero included.

// Index loops are the style under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;

/// `ln Σ exp z`, shifted by the maximum.
#[differentiable]
fn logsumexp(z: &[f64]) -> f64 {
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in z {
        sum += (v - max).exp();
    }
    max + sum.ln()
}

/// The pattern of the GMM objective: per point and component, `c = x_p - m_k` written whole, `y = a_k c`
/// written whole then added to by a triangle that reads `c` in an inner loop, and `Σ y²` read.
#[differentiable(wrt(a, m, l))]
fn centred_norms(a: &[f64], m: &[f64], l: &[f64], x: &[f64], d: usize) -> f64 {
    let k = a.len() / d;
    let n = x.len() / d;
    let mut c = vec![0.0; d];
    let mut y = vec![0.0; d];
    let mut s = 0.0;
    for p in 0..n {
        for ik in 0..k {
            for j in 0..d {
                c[j] = x[p * d + j] - m[ik * d + j];
            }
            for j in 0..d {
                y[j] = a[ik * d + j] * c[j];
            }
            let mut li = 0;
            for i in 0..d {
                for j in i + 1..d {
                    y[j] += l[li] * c[i];
                    li += 1;
                }
            }
            for j in 0..d {
                s += y[j] * y[j] + c[j].sin();
            }
        }
    }
    s
}

/// Written whole, then a loop overwrites part of it from itself, then read: the copy is taken after
/// the partial overwrite.
#[differentiable]
fn partly_overwritten(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        c[0] *= x[p];
        for j in 1..n {
            c[j] = c[j - 1] * c[j] + w[j];
        }
        for j in 0..n {
            s += c[j] * c[n - 1 - j].cos();
        }
    }
    s
}

/// Read, overwritten whole, read again in the same iteration: two copies of one array.
#[differentiable]
fn read_between_overwrites(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = (x[p] + w[j]).sin();
        }
        for j in 0..n {
            s += c[j] * c[n - 1 - j] * w[j];
        }
        for j in 0..n {
            c[j] = c[j] * x[p] + 1.0;
        }
        for j in 0..n {
            s += c[j].exp() * w[j];
        }
        for j in 0..n {
            c[n - 1 - j] = c[j] * 0.5;
        }
        for j in 0..n {
            s += c[j] * c[(j + 1) % n];
        }
    }
    s
}

/// Read at the top of an iteration (the last iteration's values) before it is written, and after.
#[differentiable]
fn read_before_written(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.5; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            s += c[j] * c[j] * x[p];
        }
        for j in 0..n {
            c[j] += x[p] * w[j];
        }
        for j in 0..n {
            s += (c[j] * w[j]).sin() * c[n - 1 - j];
        }
    }
    s
}

/// The loop over points leaves early: `break` after the array is written, `continue` before it is read.
#[differentiable(wrt(x, w))]
fn leaves_early(x: &[f64], w: &[f64], limit: f64) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j] - w[0];
        }
        if c[0] > limit {
            break;
        }
        if x[p] < -0.5 {
            continue;
        }
        for j in 0..n {
            s += c[j] * c[j] * c[(j + 1) % n];
        }
    }
    s
}

/// The reading loop leaves early itself.
#[differentiable]
fn reader_breaks(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        for j in 0..n {
            if c[j] > 0.6 {
                break;
            }
            s += c[j] * c[j];
        }
    }
    s
}

/// Written whole, then partly overwritten under a branch inside a loop, then read under a branch.
#[differentiable]
fn written_conditionally(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] - w[j];
        }
        for j in 0..n {
            if c[j] < 0.0 {
                c[j] = c[j] * c[j] * w[j];
            }
        }
        if x[p] > 0.0 {
            for j in 0..n {
                s += c[j] * x[p] * c[n - 1 - j];
            }
        } else {
            for j in 0..n {
                if j % 2 == 0 {
                    s += c[j].sin();
                }
            }
        }
    }
    s
}

/// Written whole only in some iterations (under a branch), read in all: no copy is taken there, the
/// reads are stored as before.
#[differentiable]
fn written_in_some_iterations(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![1.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        if x[p] > 0.0 {
            for j in 0..n {
                c[j] = x[p] * w[j];
            }
        }
        for j in 0..n {
            s += c[j] * c[n - 1 - j] * w[j];
        }
    }
    s
}

/// Written whole in nested loops (a row per inner iteration) and read in a loop nested deeper.
#[differentiable]
fn nested_rows(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for q in 0..3 {
            for j in 0..n {
                c[j] = x[p] * w[j] + q as f64;
            }
            for i in 0..n {
                for j in 0..i {
                    s += c[i] * c[j] * w[i];
                }
            }
        }
    }
    s
}

/// Lent to a call after it is written whole, and read in a loop too.
#[differentiable]
fn lent_to_a_call(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        s += logsumexp(&c);
        for j in 0..n {
            s += c[j] * c[n - 1 - j] * w[j];
        }
    }
    s
}

/// The length from a parameter (zero allowed): `vec![0.0; n]` and `for j in 0..n`, and `c.len()`.
#[differentiable(wrt(x, w))]
fn length_from_parameter(x: &[f64], w: &[f64], n: usize) -> f64 {
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j % w.len()];
        }
        for j in 0..c.len() {
            c[j] = c[j] * c[j];
        }
        for j in 0..n {
            s += c[j] * x[p] * c[n - 1 - j];
        }
    }
    s
}

/// A `while` loop's body writes it whole and reads it.
#[differentiable]
fn in_a_while(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    let mut p = 0;
    while p < x.len() {
        for j in 0..n {
            c[j] = (x[p] * w[j]).tanh();
        }
        for j in 0..n {
            s += c[j] * w[j] * c[n - 1 - j];
        }
        p += 1;
    }
    s
}

/// A fixed-size local array.
#[differentiable]
fn fixed_size(x: &[f64], w: &[f64]) -> f64 {
    let mut c = [0.0; 3];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..3 {
            c[j] = x[p] * w[j];
        }
        for j in 0..3 {
            s += c[j] * c[(j + 1) % 3];
        }
    }
    s
}

/// Generic over the float type, for second order.
#[differentiable(order = 2)]
fn generic_rows<T: autodiff::Float>(x: &[T], w: &[T]) -> T {
    let n = w.len();
    let mut c = vec![T::zero(); n];
    let mut s = T::zero();
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        for j in 0..n {
            s = s + c[j] * c[j] * w[j];
        }
        for i in 0..n {
            for j in 0..i {
                s = s + c[i] * c[j];
            }
        }
    }
    s
}

type Grad = (f64, (Vec<f64>, Vec<f64>));
type Jvp = (f64, f64);

/// Checks `grad` of `f(x, w)` on 30 random inputs of each size: the value, central differences, and
/// `jvp` along a random direction against the gradient.
#[track_caller]
fn check_two(
    what: &str,
    sizes: &[(usize, usize)],
    f: impl Fn(&[f64], &[f64]) -> f64,
    grad: impl Fn(&[f64], &[f64]) -> Grad,
    jvp: impl Fn(&[f64], &[f64], (Vec<f64>, Vec<f64>)) -> Jvp,
) {
    let mut r = Inputs(what.len() as u64 * 31 + 5);
    for &(nx, nw) in sizes {
        for _ in 0..30 {
            let (x, w) = (r.vec(nx), r.vec(nw));
            let (value, (gx, gw)) = grad(&x, &w);
            assert_close(value, f(&x, &w), ANALYTIC_TOL, &format!("{what} value"));
            let flat: Vec<f64> = x.iter().chain(&w).copied().collect();
            let g: Vec<f64> = gx.iter().chain(&gw).copied().collect();
            assert_fd_gradient(|p| f(&p[..nx], &p[nx..]), &flat, &g, what);
            let (tx, tw) = (r.vec(nx), r.vec(nw));
            let t: Vec<f64> = tx.iter().chain(&tw).copied().collect();
            let (jvp_value, dot_value) = jvp(&x, &w, (tx, tw));
            assert_close(jvp_value, value, ANALYTIC_TOL, &format!("{what} jvp value"));
            assert_dot(dot_value, &g, &t, 1e-9, &format!("{what} jvp"));
        }
    }
}

const SIZES: &[(usize, usize)] = &[(1, 1), (3, 2), (4, 5), (6, 3)];

#[test]
fn the_gmm_pattern_against_a_gradient_by_hand() {
    let mut r = Inputs(1);
    for (d, k, n) in [(1, 1, 1), (2, 3, 4), (3, 2, 5), (4, 3, 3)] {
        for _ in 0..20 {
            let (a, m, x) = (r.vec(k * d), r.vec(k * d), r.vec(n * d));
            let l = r.vec(d * (d.max(1) - 1) / 2 + 1);
            let (value, (ga, gm, gl)) = centred_norms_grad(&a, &m, &l, &x, d);
            // By hand: y = A c + L c (L strictly lower by rows as the loops run), s = Σ y² + Σ sin c.
            let (mut ha, mut hm, mut hl) = (vec![0.0; k * d], vec![0.0; k * d], vec![0.0; l.len()]);
            let mut expected = 0.0;
            for p in 0..n {
                for ik in 0..k {
                    let c: Vec<f64> = (0..d).map(|j| x[p * d + j] - m[ik * d + j]).collect();
                    let mut y: Vec<f64> = (0..d).map(|j| a[ik * d + j] * c[j]).collect();
                    let mut li = 0;
                    for i in 0..d {
                        for j in i + 1..d {
                            y[j] += l[li] * c[i];
                            li += 1;
                        }
                    }
                    expected += y.iter().map(|v| v * v).sum::<f64>();
                    expected += c.iter().map(|v| v.sin()).sum::<f64>();
                    let dy: Vec<f64> = y.iter().map(|v| 2.0 * v).collect();
                    let mut dc: Vec<f64> = c.iter().map(|v| v.cos()).collect();
                    for j in 0..d {
                        ha[ik * d + j] += dy[j] * c[j];
                        dc[j] += dy[j] * a[ik * d + j];
                    }
                    let mut li = 0;
                    for i in 0..d {
                        for j in i + 1..d {
                            hl[li] += dy[j] * c[i];
                            dc[i] += dy[j] * l[li];
                            li += 1;
                        }
                    }
                    for j in 0..d {
                        hm[ik * d + j] -= dc[j];
                    }
                }
            }
            assert_close(value, expected, ANALYTIC_TOL, "centred_norms value");
            assert_all_close(&ga, &ha, 1e-10, "gradient of a by hand");
            assert_all_close(&gm, &hm, 1e-10, "gradient of m by hand");
            assert_all_close(&gl, &hl, 1e-10, "gradient of l by hand");
            let flat: Vec<f64> = a.iter().chain(&m).chain(&l).copied().collect();
            let g: Vec<f64> = ga.iter().chain(&gm).chain(&gl).copied().collect();
            let (na, nm) = (a.len(), m.len());
            assert_fd_gradient(
                |p| centred_norms(&p[..na], &p[na..na + nm], &p[na + nm..], &x, d),
                &flat,
                &g,
                "centred_norms",
            );
            let (mut ia, mut im, mut il) = (vec![7.0; na], vec![7.0; nm], vec![7.0; l.len()]);
            let v = centred_norms_grad_into(&a, &m, &l, &x, d, (&mut ia, &mut im, &mut il));
            assert_close(v, value, ANALYTIC_TOL, "grad_into value");
            assert_all_close(&ia, &ga, 1e-12, "grad_into a");
            assert_all_close(&im, &gm, 1e-12, "grad_into m");
            assert_all_close(&il, &gl, 1e-12, "grad_into l");
        }
    }
}

#[test]
fn a_simple_row_against_a_gradient_by_hand() {
    let mut r = Inputs(2);
    for (nx, nw) in [(1, 1), (3, 4), (5, 2)] {
        for _ in 0..20 {
            let (x, w) = (r.vec(nx), r.vec(nw));
            let (value, (gx, gw)) = generic_rows_grad(&x, &w);
            // s = Σ_p x_p² (Σ_j w_j³ + Σ_{j < i} w_i w_j).
            let (mut hx, mut hw, mut expected) = (vec![0.0; nx], vec![0.0; nw], 0.0);
            let total: f64 = w.iter().sum();
            for p in 0..nx {
                let mut pairs = 0.0;
                for i in 0..nw {
                    for j in 0..i {
                        pairs += w[i] * w[j];
                    }
                }
                let cubes: f64 = w.iter().map(|v| v.powi(3)).sum();
                expected += x[p] * x[p] * (cubes + pairs);
                hx[p] += 2.0 * x[p] * (cubes + pairs);
                for j in 0..nw {
                    hw[j] += x[p] * x[p] * (3.0 * w[j] * w[j] + total - w[j]);
                }
            }
            assert_close(value, expected, ANALYTIC_TOL, "generic_rows value");
            assert_all_close(&gx, &hx, 1e-10, "generic_rows x by hand");
            assert_all_close(&gw, &hw, 1e-10, "generic_rows w by hand");
        }
    }
}

#[test]
fn partly_overwritten_arrays() {
    check_two(
        "partly_overwritten",
        SIZES,
        partly_overwritten,
        partly_overwritten_grad,
        partly_overwritten_jvp,
    );
}

#[test]
fn arrays_read_between_overwrites() {
    check_two(
        "read_between_overwrites",
        SIZES,
        read_between_overwrites,
        read_between_overwrites_grad,
        read_between_overwrites_jvp,
    );
}

#[test]
fn arrays_read_before_they_are_written() {
    check_two(
        "read_before_written",
        SIZES,
        read_before_written,
        read_before_written_grad,
        read_before_written_jvp,
    );
}

#[test]
fn loops_that_leave_early() {
    for limit in [-0.2, 0.3, 2.0] {
        check_two(
            "leaves_early",
            SIZES,
            |x, w| leaves_early(x, w, limit),
            |x, w| leaves_early_grad(x, w, limit),
            |x, w, t| leaves_early_jvp(x, w, limit, t),
        );
    }
    check_two(
        "reader_breaks",
        SIZES,
        reader_breaks,
        reader_breaks_grad,
        reader_breaks_jvp,
    );
}

#[test]
fn arrays_written_under_branches() {
    check_two(
        "written_conditionally",
        SIZES,
        written_conditionally,
        written_conditionally_grad,
        written_conditionally_jvp,
    );
    check_two(
        "written_in_some_iterations",
        SIZES,
        written_in_some_iterations,
        written_in_some_iterations_grad,
        written_in_some_iterations_jvp,
    );
}

#[test]
fn arrays_written_in_nested_loops() {
    check_two(
        "nested_rows",
        SIZES,
        nested_rows,
        nested_rows_grad,
        nested_rows_jvp,
    );
}

#[test]
fn arrays_lent_to_calls() {
    check_two(
        "lent_to_a_call",
        SIZES,
        lent_to_a_call,
        lent_to_a_call_grad,
        lent_to_a_call_jvp,
    );
}

#[test]
fn lengths_from_a_parameter_zero_included() {
    for n in [0, 1, 3, 6] {
        check_two(
            "length_from_parameter",
            SIZES,
            |x, w| length_from_parameter(x, w, n),
            |x, w| length_from_parameter_grad(x, w, n),
            |x, w, t| length_from_parameter_jvp(x, w, n, t),
        );
    }
}

#[test]
fn while_loops_and_fixed_size_arrays() {
    check_two(
        "in_a_while",
        SIZES,
        in_a_while,
        in_a_while_grad,
        in_a_while_jvp,
    );
    check_two(
        "fixed_size",
        &[(1, 3), (4, 3)],
        fixed_size,
        fixed_size_grad,
        fixed_size_jvp,
    );
}

#[test]
fn second_order_through_a_stored_array() {
    let mut r = Inputs(9);
    for _ in 0..10 {
        let (x, w) = (r.vec(3), r.vec(4));
        let (vx, vw) = (r.vec(3), r.vec(4));
        let (_, _, (hx, hw)) = generic_rows_hvp(&x, &w, (vx.clone(), vw.clone()));
        let flat: Vec<f64> = x.iter().chain(&w).copied().collect();
        let v: Vec<f64> = vx.iter().chain(&vw).copied().collect();
        let grad = |p: &[f64]| {
            let (_, (gx, gw)) = generic_rows_grad(&p[..3], &p[3..]);
            gx.into_iter().chain(gw).collect::<Vec<f64>>()
        };
        let h = 1e-6;
        let plus: Vec<f64> = flat.iter().zip(&v).map(|(a, b)| a + h * b).collect();
        let minus: Vec<f64> = flat.iter().zip(&v).map(|(a, b)| a - h * b).collect();
        let fd: Vec<f64> = grad(&plus)
            .iter()
            .zip(grad(&minus))
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect();
        let got: Vec<f64> = hx.into_iter().chain(hw).collect();
        assert_all_close(&got, &fd, 1e-5, "generic_rows hvp");
    }
}
