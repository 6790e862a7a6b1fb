//! `x.fill(v)`, `x.copy_from_slice(src)` and `x.clone_from_slice(src)` in a differentiable body: the counted
//! loops they are (`for i in 0..x.len() { x[i] = v; }`), on output parameters, local `Vec`s and fixed
//! arrays. Each against central differences on seeded inputs (`f_grad`, `f_jvp`, `f_vjp`, `f_grad_into`
//! into NaN buffers) and, at `order = 2`, the Hessian against central differences of `f_grad`.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::probe::*;

const POINTS: usize = 6;

fn nan(n: usize) -> Vec<f64> {
    vec![GARBAGE; n]
}

/// The output cleared whole, then accumulated into: its incoming value is not an input.
#[differentiable]
fn fill_then_accumulate(x: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for i in 0..x.len() {
        out[i] += x[i] * x[i];
    }
}

/// The output copied from the input, then one element updated.
#[differentiable]
fn copy_then_scale(x: &[f64], out: &mut [f64]) {
    out.copy_from_slice(x);
    out[0] *= 3.0;
    out[1] *= out[0];
}

/// The output filled with a value that depends on the inputs, read back by the float result.
#[differentiable(order = 2)]
fn fill_active(x: &[f64], out: &mut [f64]) -> f64 {
    out.fill(x[0] * x[1]);
    out[1] += x[1].sin();
    let mut s = 0.0;
    for i in 0..out.len() {
        s += out[i] * x[i];
    }
    s
}

/// A local `Vec` copied from the input (`copy_from_slice(x)`), then refilled with a constant: only the
/// products taken before the refill depend on `u`'s copied values.
#[differentiable(order = 2)]
fn local_copy_then_fill(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    u.copy_from_slice(x);
    let a = u[0] * u[1] + u[2].exp();
    u.fill(1.0);
    a * x[1] + u[0] * x[2]
}

/// The brief's form: the copy overwritten by the fill, `u[0] * x[1]` is `x[1]`.
#[differentiable(order = 2)]
fn copy_overwritten(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    u.copy_from_slice(x);
    u.fill(1.0);
    u[0] * x[1] + x[0] * x[0]
}

/// `clone_from_slice` of a sub-slice into a shorter local, and a fill with an active value.
#[differentiable(order = 2)]
fn clone_sub_slice(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len() - 1];
    u.clone_from_slice(&x[1..]);
    let mut s = 0.0;
    for i in 0..u.len() {
        s += u[i] * u[i] * x[i];
    }
    u.fill(x[0].cos());
    s + u[0] * u[1]
}

/// A fixed local array: `copy_from_slice(&x[..3])`, then `fill` with a value read from the array.
#[differentiable(order = 2)]
fn fixed_array(x: &[f64]) -> f64 {
    let mut w = [0.0; 3];
    w.copy_from_slice(&x[..3]);
    let p = w[0] * w[1] * w[2];
    let v = w[2] * x[3];
    w.fill(v);
    p + w[0] * x[0]
}

/// A copy of one local into another, inside a time-stepping loop (the form the old error named).
#[differentiable(order = 2)]
fn time_steps(x: &[f64]) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 0..n {
            let left = if i == 0 { u[n - 1] } else { u[i - 1] };
            next[i] = u[i] + 0.1 * (left - u[i]) * u[i];
        }
        u.copy_from_slice(&next);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += u[i] * u[i];
    }
    s
}

/// The heat equation of numeric Rust: the interior of the new state copied back through sub-slices.
#[differentiable(order = 2)]
fn heat(u0: &[f64], alpha: f64) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]) * u[i];
        }
        u[1..n - 1].copy_from_slice(&next[1..n - 1]);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += u[i] * u[i];
    }
    s
}

/// Sub-slice receivers with open ends on an output: `out[..2]` copied from `x[2..4]`, `out[2..]` filled.
#[differentiable]
fn halves(x: &[f64], out: &mut [f64]) {
    out[..2].copy_from_slice(&x[2..4]);
    out[2..].fill(x[0] * x[1]);
    out[3] += out[0];
}

/// A window that moves with the loop (`&x[k..k + 3]`, the sub-slice read in place, `x[k + j]`, by the
/// sweeps): `Σ_k x_k x_(k+1) + sin(x_(k+2)) x_k`.
#[differentiable(order = 2)]
fn moving_window(x: &[f64]) -> f64 {
    let n = x.len();
    let mut w = [0.0; 3];
    let mut s = 0.0;
    for k in 0..n - 2 {
        w.copy_from_slice(&x[k..k + 3]);
        s += w[0] * w[1] + w[2].sin() * w[0];
    }
    s
}

/// A sub-slice source past its slice's end: the sweeps panic as `&x[1..5]` does.
#[differentiable]
fn past_the_end(x: &[f64]) -> f64 {
    let mut w = [0.0; 4];
    w.copy_from_slice(&x[1..5]);
    w[0] * w[3]
}

/// A sub-slice source whose start is past its end.
#[differentiable]
fn reversed_bounds(x: &[f64], a: usize, b: usize) -> f64 {
    let mut w = [0.0; 2];
    w[1..].copy_from_slice(&x[a..b]);
    w[1] * w[1]
}

/// A local matrix's row filled, and a row copied from the input.
#[differentiable(order = 2)]
fn matrix_rows(x: &[f64]) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    m[0].fill(x[0] * x[1]);
    m[1].copy_from_slice(&x[1..3]);
    m[0][1] * m[1][0] + m[1][1].sin() * m[0][0]
}

#[test]
fn generated_signatures() {
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = fill_then_accumulate_vjp;
    let _: fn(&[f64], &mut [f64], Vec<f64>, &mut [f64]) = fill_then_accumulate_jvp;
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = copy_then_scale_vjp;
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>) = fill_active_grad;
}

fn check_output(
    name: &str,
    n: usize,
    f: fn(&[f64], &mut [f64]),
    vjp: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64>,
    jvp: fn(&[f64], &mut [f64], Vec<f64>, &mut [f64]),
    by_hand: fn(&[f64]) -> Vec<Vec<f64>>,
) {
    check_vector(
        name,
        POINTS,
        range(n, -2.0, 2.0),
        &|x| {
            let mut out = nan(n);
            f(x, &mut out);
            out
        },
        &|x, c| {
            let mut out = nan(n);
            let g = vjp(x, &mut out, c);
            (out, g)
        },
        &|x, t| {
            let mut out = nan(n);
            let mut d = nan(n);
            jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        Some(&by_hand),
    );
}

#[test]
fn fill_on_an_output() {
    // out_i = x_i^2: J = diag(2 x).
    check_output(
        "fill_then_accumulate",
        4,
        fill_then_accumulate,
        fill_then_accumulate_vjp,
        fill_then_accumulate_jvp,
        |x| {
            (0..x.len())
                .map(|i| {
                    (0..x.len())
                        .map(|j| if i == j { 2.0 * x[i] } else { 0.0 })
                        .collect()
                })
                .collect()
        },
    );
}

#[test]
fn copy_from_slice_on_an_output() {
    // out = (3 x0, 3 x0 x1, x2, x3).
    check_output(
        "copy_then_scale",
        4,
        copy_then_scale,
        copy_then_scale_vjp,
        copy_then_scale_jvp,
        |x| {
            vec![
                vec![3.0, 0.0, 0.0, 0.0],
                vec![3.0 * x[1], 3.0 * x[0], 0.0, 0.0],
                vec![0.0, 0.0, 1.0, 0.0],
                vec![0.0, 0.0, 0.0, 1.0],
            ]
        },
    );
}

#[test]
fn fill_on_an_output_read_back_at_second_order() {
    let n = 4;
    Probe::new("fill_active", |x| fill_active(x, &mut nan(n)))
        .grad(|x| {
            let mut out = nan(n);
            let (v, g) = fill_active_grad(x, &mut out);
            let mut expected = vec![x[0] * x[1]; n];
            expected[1] += x[1].sin();
            assert_vec_near(&out, &expected, 1e-12, "fill_active_grad's output");
            (v, g)
        })
        .jvp(|x, t| fill_active_jvp(x, &mut nan(n), t.to_vec(), &mut nan(n)))
        .grad_into(|x| {
            let mut g = nan(n);
            let v = fill_active_grad_into(x, &mut nan(n), &mut g);
            (v, g)
        })
        .hessian(|x| fill_active_hessian(x, &mut nan(n)))
        .run(POINTS, range(n, -1.5, 1.5));
}

#[test]
fn local_vec_copied_then_filled() {
    slice(
        "local_copy_then_fill",
        local_copy_then_fill,
        local_copy_then_fill_grad,
        local_copy_then_fill_jvp,
        local_copy_then_fill_grad_into,
    )
    .analytic(|x| {
        let a = x[0] * x[1] + x[2].exp();
        vec![x[1] * x[1], x[0] * x[1] + a, x[2].exp() * x[1] + 1.0]
    })
    .hessian(hess_slice(local_copy_then_fill_hessian))
    .run(POINTS, range(3, -1.5, 1.5));
}

#[test]
fn copy_overwritten_by_fill() {
    slice(
        "copy_overwritten",
        copy_overwritten,
        copy_overwritten_grad,
        copy_overwritten_jvp,
        copy_overwritten_grad_into,
    )
    .analytic(|x| vec![2.0 * x[0], 1.0, 0.0])
    .hessian(hess_slice(copy_overwritten_hessian))
    .run(POINTS, range(3, -1.5, 1.5));
}

#[test]
fn clone_from_a_sub_slice() {
    slice(
        "clone_sub_slice",
        clone_sub_slice,
        clone_sub_slice_grad,
        clone_sub_slice_jvp,
        clone_sub_slice_grad_into,
    )
    .hessian(hess_slice(clone_sub_slice_hessian))
    .run(POINTS, range(4, -1.5, 1.5));
}

#[test]
fn fixed_local_array() {
    slice(
        "fixed_array",
        fixed_array,
        fixed_array_grad,
        fixed_array_jvp,
        fixed_array_grad_into,
    )
    .analytic(|x| {
        // p + x2 x3 x0.
        vec![
            x[1] * x[2] + x[2] * x[3],
            x[0] * x[2],
            x[0] * x[1] + x[3] * x[0],
            x[2] * x[0],
            0.0,
        ]
    })
    .hessian(hess_slice(fixed_array_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn copy_in_a_time_stepping_loop() {
    slice(
        "time_steps",
        time_steps,
        time_steps_grad,
        time_steps_jvp,
        time_steps_grad_into,
    )
    .hessian(hess_slice(time_steps_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn heat_equation_with_sub_slice_copies() {
    let n = 5;
    Probe::new("heat", |x| heat(&x[..n], x[n]))
        .grad(|x| {
            let (v, (gu, ga)) = heat_grad(&x[..n], x[n]);
            let mut g = gu;
            g.push(ga);
            (v, g)
        })
        .jvp(|x, t| heat_jvp(&x[..n], x[n], (t[..n].to_vec(), t[n])))
        .hessian(|x| {
            let (v, (gu, ga), h) = heat_hessian(&x[..n], x[n]);
            let mut g = gu;
            g.push(ga);
            (v, g, h)
        })
        .run(POINTS, |r| {
            let mut x = r.vec(n, -1.0, 1.0);
            x.push(r.uniform(0.05, 0.3));
            x
        });
}

/// The two sub-slice writes add up to a whole one: `out`'s incoming value is not an input (API.md), and
/// `G` is `x`'s alone; buffers of NaN going in show any use of it.
#[test]
fn sub_slice_receivers_on_an_output() {
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = halves_vjp;
    // out = (x2, x3, x0 x1, x0 x1 + x2).
    let n = 4;
    check_vector(
        "halves",
        POINTS,
        range(n, -2.0, 2.0),
        &|x| {
            let mut out = nan(n);
            halves(x, &mut out);
            out
        },
        &|x, c| {
            let mut out = nan(n);
            let gx = halves_vjp(x, &mut out, c);
            (out, gx)
        },
        &|x, t| {
            let mut out = nan(n);
            let mut d = nan(n);
            halves_jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        Some(&|x: &[f64]| {
            vec![
                vec![0.0, 0.0, 1.0, 0.0],
                vec![0.0, 0.0, 0.0, 1.0],
                vec![x[1], x[0], 0.0, 0.0],
                vec![x[1], x[0], 1.0, 0.0],
            ]
        }),
    );
}

#[test]
fn matrix_rows_filled_and_copied() {
    slice(
        "matrix_rows",
        matrix_rows,
        matrix_rows_grad,
        matrix_rows_jvp,
        matrix_rows_grad_into,
    )
    .analytic(|x| {
        // x0 x1 x1 + sin(x2) x0 x1.
        let s = x[2].sin();
        vec![
            x[1] * x[1] + s * x[1],
            2.0 * x[0] * x[1] + s * x[0],
            x[2].cos() * x[0] * x[1],
        ]
    })
    .hessian(hess_slice(matrix_rows_hessian))
    .run(POINTS, range(3, -1.5, 1.5));
}

#[test]
fn a_moving_window_copied_in_a_loop() {
    slice(
        "moving_window",
        moving_window,
        moving_window_grad,
        moving_window_jvp,
        moving_window_grad_into,
    )
    .analytic(|x| {
        let n = x.len();
        let mut g = vec![0.0; n];
        for k in 0..n - 2 {
            g[k] += x[k + 1] + x[k + 2].sin();
            g[k + 1] += x[k];
            g[k + 2] += x[k + 2].cos() * x[k];
        }
        g
    })
    .hessian(hess_slice(moving_window_hessian))
    .run(POINTS, range(7, -1.5, 1.5));
}

#[test]
#[should_panic(expected = "range end index 5 out of range for slice of length 4")]
fn a_source_past_its_end_panics_in_the_gradient() {
    let _ = past_the_end_grad(&[1.0, 2.0, 3.0, 4.0]);
}

#[test]
#[should_panic(expected = "range end index 5 out of range for slice of length 4")]
fn a_source_past_its_end_panics_in_the_primal() {
    let _ = past_the_end(&[1.0, 2.0, 3.0, 4.0]);
}

#[test]
#[should_panic(expected = "slice index starts at 3 but ends at 2")]
fn a_source_with_reversed_bounds_panics_in_the_gradient() {
    let _ = reversed_bounds_grad(&[1.0, 2.0, 3.0, 4.0], 3, 2);
}

#[test]
fn a_sub_slice_source_of_the_right_length() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (v, g) = past_the_end_grad(&x);
    assert_eq!(v, 2.0 * 5.0);
    assert_eq!(g, vec![0.0, 5.0, 0.0, 0.0, 2.0]);
    let (v, g) = reversed_bounds_grad(&x, 2, 3);
    assert_eq!(reversed_bounds(&x, 2, 3), v);
    assert_eq!(v, 9.0);
    assert_eq!(g, vec![0.0, 0.0, 6.0, 0.0, 0.0]);
}
