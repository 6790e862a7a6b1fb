//! Edge cases of the reverse-sweep loop optimisations: fusion, forward order, sliding windows, taped
//! transcendental results, and arrays created inside loop bodies and branches.

// The functions index their slices in range loops on purpose: those are the loops under test.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::reversed_empty_ranges,
    clippy::len_zero,
    clippy::type_complexity,
    clippy::mut_range_bound,
    clippy::useless_vec
)]

use autodiff::{check_gradient, differentiable};

fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64], g: &[f64], what: &str) {
    let c = check_gradient(f, x, g);
    assert!(c.is_ok(1e-6), "{what} at {x:?}: {c}");
}

fn inputs() -> Vec<Vec<f64>> {
    vec![
        vec![],
        vec![0.7],
        vec![0.3, -1.2],
        vec![0.5, -0.4, 1.1],
        vec![0.9, 0.2, -0.7, 1.3, -0.6, 0.45, 0.8],
    ]
}

fn run(
    name: &str,
    f: impl Fn(&[f64]) -> f64,
    g: impl Fn(&[f64]) -> (f64, Vec<f64>),
    min_len: usize,
) {
    for x in inputs() {
        if x.len() < min_len {
            continue;
        }
        let (v, grad) = g(&x);
        assert!((v - f(&x)).abs() < 1e-12 * (1.0 + v.abs()), "{name} value");
        fd(&f, &x, &grad, name);
    }
}

macro_rules! probe {
    ($test:ident, $f:ident, $g:ident, $min:expr) => {
        #[test]
        fn $test() {
            run(stringify!($f), $f, $g, $min);
        }
    };
}

#[differentiable]
fn acc_returned(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i].sin();
    }
    s
}
probe!(p_acc_returned, acc_returned, acc_returned_grad, 0);

#[differentiable]
fn acc_squared(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
    }
    s * s
}
probe!(p_acc_squared, acc_squared, acc_squared_grad, 0);

#[differentiable]
fn two_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        t += x[i].cos();
    }
    s + t
}
probe!(p_two_fused, two_fused, two_fused_grad, 0);

#[differentiable]
fn windows3(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        s += x[i - 1] * x[i + 1] - x[i].powi(2) + x[i + 1].exp();
    }
    s
}
probe!(p_windows3, windows3, windows3_grad, 2);

#[differentiable]
fn windows3_scaled(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        s += x[i - 1] * x[i + 1] - x[i].powi(2) + x[i + 1].exp();
    }
    s.sin()
}
probe!(p_windows3_scaled, windows3_scaled, windows3_scaled_grad, 2);

#[differentiable]
fn window_branch(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        if x[i] > 0.0 {
            s += x[i + 2] * x[i + 1];
        } else {
            s -= x[i + 1].sin();
        }
    }
    s
}
probe!(p_window_branch, window_branch, window_branch_grad, 2);

#[differentiable]
fn window_product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        p *= 1.0 + 0.1 * x[i + 1];
        s += x[i] * p;
    }
    s + p
}
probe!(p_window_product, window_product, window_product_grad, 1);

#[differentiable]
fn window_width5(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 2..x.len() - 2 {
        s += x[i - 2] * x[i + 2] + x[i - 1] * x[i + 1] * x[i];
    }
    s
}
probe!(p_window_width5, window_width5, window_width5_grad, 4);

#[differentiable]
fn window_width6(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 2..x.len() - 3 {
        s += x[i - 2] * x[i + 3] + x[i - 1] * x[i + 1] * x[i];
    }
    s * 1.5
}
probe!(p_window_width6, window_width6, window_width6_grad, 5);

#[differentiable]
fn window_offsets_only_positive(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 3 {
        s += x[i + 1] * x[i + 3];
    }
    s
}
probe!(
    p_window_offsets_only_positive,
    window_offsets_only_positive,
    window_offsets_only_positive_grad,
    3
);

#[differentiable]
fn window_offsets_only_negative(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 3..x.len() {
        s += x[i - 1] * x[i - 3];
    }
    s * s
}
probe!(
    p_window_offsets_only_negative,
    window_offsets_only_negative,
    window_offsets_only_negative_grad,
    3
);

#[differentiable]
fn window_empty(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 3..3 {
        s += x[i - 1] * x[i + 1];
    }
    s + x[0]
}
probe!(p_window_empty, window_empty, window_empty_grad, 5);

#[differentiable]
fn window_one(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 2..3 {
        s += x[i - 1] * x[i + 1] + x[i];
    }
    s * x[0]
}
probe!(p_window_one, window_one, window_one_grad, 4);

#[differentiable]
fn window_nested(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let mut t = 0.0;
        for j in 0..x.len() {
            t += x[j] * x[i];
        }
        s += x[i + 1] * t;
    }
    s
}
probe!(p_window_nested, window_nested, window_nested_grad, 1);

#[differentiable]
fn window_inner(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        for i in 0..x.len() - 1 {
            s += x[i + 1] * x[i] * (k as f64 + 1.0);
        }
        s = s * 0.5;
    }
    s
}
probe!(p_window_inner, window_inner, window_inner_grad, 1);

#[differentiable]
fn rev_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..x.len()).rev() {
        s += x[i] * x[i - 1];
    }
    s
}
probe!(p_rev_index, rev_index, rev_index_grad, 1);

#[differentiable]
fn incl_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..=x.len() - 2 {
        s += x[i] * x[i + 1];
    }
    s
}
probe!(p_incl_index, incl_index, incl_index_grad, 2);

#[differentiable]
fn step_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len() - 1).step_by(2) {
        s += x[i] * x[i + 1];
    }
    s
}
probe!(p_step_index, step_index, step_index_grad, 1);

#[differentiable]
fn with_continue(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        if x[i] < 0.0 {
            continue;
        }
        s += x[i] * x[i + 1];
    }
    s
}
probe!(p_with_continue, with_continue, with_continue_grad, 1);

#[differentiable]
fn with_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        if x[i] < -0.5 {
            break;
        }
        s += x[i] * x[i + 1];
    }
    s
}
probe!(p_with_break, with_break, with_break_grad, 1);

#[differentiable]
fn local_written_offsets(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    for i in 0..n {
        a[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n - 1 {
        s += a[i] * a[i + 1];
    }
    s
}
probe!(
    p_local_written_offsets,
    local_written_offsets,
    local_written_offsets_grad,
    1
);

#[differentiable]
fn local_in_body(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let w = vec![x[i]; 3];
        let mut v = [0.0; 3];
        for j in 0..3 {
            v[j] = w[j] * (j as f64 + 1.0);
        }
        s += v[0] * v[1] + v[2].sin();
    }
    s
}
probe!(p_local_in_body, local_in_body, local_in_body_grad, 0);

#[differentiable]
fn local_in_branch(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            let w = [x[i], x[i] * 2.0, x[i].exp()];
            for j in 0..2 {
                s += w[j] * w[j + 1];
            }
        } else {
            let mut w = vec![0.0; 2];
            w[1] = x[i].cos();
            s += w[1] * w[0] + w[1];
        }
    }
    s
}
probe!(p_local_in_branch, local_in_branch, local_in_branch_grad, 0);

#[differentiable]
fn trans_branch(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            p = p * x[i].exp().ln_1p();
        } else {
            p = p * (x[i] * x[i] + 1.0).powf(0.3) + x[i].sin();
        }
    }
    p
}
probe!(p_trans_branch, trans_branch, trans_branch_grad, 0);

#[differentiable]
fn nested_inner_tape(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut p = 1.0;
        for j in 0..x.len() {
            p = p * (x[j] * x[i]).tanh() + 0.5;
        }
        s += p;
    }
    s
}
probe!(
    p_nested_inner_tape,
    nested_inner_tape,
    nested_inner_tape_grad,
    0
);

#[differentiable]
fn product_next_to_acc(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..x.len() {
        s += x[i].exp();
        p *= x[i].cos();
    }
    s + p
}
probe!(
    p_product_next_to_acc,
    product_next_to_acc,
    product_next_to_acc_grad,
    0
);

#[differentiable]
fn tuple_ret(x: &[f64]) -> (f64, f64) {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
    }
    (s, s * 2.0)
}
#[test]
fn p_tuple_ret() {
    let x = [0.5, -0.4, 1.1];
    let (_, g) = tuple_ret_vjp(&x, (0.3, -1.1));
    fd(
        |z| {
            let (a, b) = tuple_ret(z);
            0.3 * a - 1.1 * b
        },
        &x,
        &g,
        "tuple_ret",
    );
}

#[differentiable]
fn early_after(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    if s > 1.0 {
        return s * 3.0;
    }
    s
}
probe!(p_early_after, early_after, early_after_grad, 0);

#[differentiable]
fn early_before(x: &[f64]) -> f64 {
    if x.len() > 5 {
        return x[0];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s
}
probe!(p_early_before, early_before, early_before_grad, 0);

#[differentiable]
fn early_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] < -0.65 {
            return s;
        }
        s += x[i] * x[i];
    }
    s
}
probe!(p_early_in_loop, early_in_loop, early_in_loop_grad, 0);

#[differentiable]
fn forward_order_local(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    for i in 0..n {
        a[i] = x[i].sin();
    }
    let mut s = 0.0;
    for i in 0..n {
        s += a[i] * x[i];
    }
    s * s
}
probe!(
    p_forward_order_local,
    forward_order_local,
    forward_order_local_grad,
    0
);

#[differentiable]
fn while_acc(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < x.len() {
        s += x[i].exp();
        i += 1;
    }
    s
}
probe!(p_while_acc, while_acc, while_acc_grad, 0);

#[differentiable]
fn iter_acc(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&u, &v) in x.iter().zip(y.iter()) {
        s += u * v.ln_1p();
    }
    s
}
#[test]
fn p_iter_acc() {
    let x = [0.5, -0.4, 1.1];
    let y = [0.2, 0.9, 0.1];
    let (_, (gx, gy)) = iter_acc_grad(&x, &y);
    let mut g = gx.clone();
    g.extend(gy);
    fd(
        |z| iter_acc(&z[..3], &z[3..]),
        &[0.5, -0.4, 1.1, 0.2, 0.9, 0.1],
        &g,
        "iter_acc",
    );
}

#[differentiable]
fn fused_nested_tape(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut p = 1.0;
        for j in 0..3 {
            p = p * (x[i] + j as f64).sin();
        }
        s += p;
    }
    s
}
probe!(
    p_fused_nested_tape,
    fused_nested_tape,
    fused_nested_tape_grad,
    0
);

#[differentiable]
fn const_offset_var(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let j = i + 1;
        let k = j - 1;
        s += x[j] * x[k];
    }
    s
}
probe!(
    p_const_offset_var,
    const_offset_var,
    const_offset_var_grad,
    1
);

#[differentiable]
fn shadow_index(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() / 2 {
        let i = 2 * i;
        s += x[i] * x[i + 1];
    }
    s
}
probe!(p_shadow_index, shadow_index, shadow_index_grad, 0);

#[differentiable]
fn scalar_param_scaled(a: f64, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += a * x[i];
    }
    s * s
}
#[test]
fn p_scalar_param_scaled() {
    let x = [0.5, -0.4, 1.1];
    let (_, (ga, gx)) = scalar_param_scaled_grad(0.8, &x);
    let mut g = vec![ga];
    g.extend(gx);
    fd(
        |z| scalar_param_scaled(z[0], &z[1..]),
        &[0.8, 0.5, -0.4, 1.1],
        &g,
        "scalar_param_scaled",
    );
}

#[differentiable]
fn gen_stencil<T: autodiff::Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 1..x.len() - 1 {
        let d = x[i + 1] - x[i - 1];
        s = s + d * d * x[i].exp();
    }
    s
}

#[differentiable]
fn gen_tape<T: autodiff::Float>(x: &[T]) -> T {
    let mut p = T::one();
    for i in 0..x.len() {
        if x[i] > T::zero() {
            p = p * x[i].sin().exp();
        } else {
            p = p * (x[i] * x[i]).ln_1p() + T::one();
        }
    }
    p
}

#[differentiable]
fn gen_window_prod<T: autodiff::Float>(x: &[T]) -> T {
    let mut p = T::one();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        p = p * (x[i] * x[i + 1]).cos();
        s = s + p * x[i + 1];
    }
    s
}

fn hvp_check(
    name: &str,
    g: impl Fn(&[autodiff::Dual<f64>]) -> Vec<autodiff::Dual<f64>>,
    gf: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
    v: &[f64],
) {
    use autodiff::Dual;
    let xs: Vec<Dual<f64>> = x.iter().zip(v).map(|(&a, &b)| Dual::new(a, b)).collect();
    let out = g(&xs);
    for (k, d) in out.iter().enumerate() {
        let h = 1e-5;
        let xp: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
        let xm: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
        let num = (gf(&xp)[k] - gf(&xm)[k]) / (2.0 * h);
        assert!(
            (d.eps - num).abs() < 1e-5 * (1.0 + num.abs()),
            "{name} hvp[{k}]: {} vs {num}",
            d.eps
        );
        assert!(
            (d.re - gf(x)[k]).abs() < 1e-10 * (1.0 + d.re.abs()),
            "{name} grad[{k}]"
        );
    }
}

macro_rules! gen_probe {
    ($test:ident, $f:ident, $g:ident, $j:ident, $min:expr) => {
        #[test]
        fn $test() {
            run(stringify!($f), |x| $f(x), |x| $g(x), $min);
            let v = [0.3, -0.7, 0.2, 0.9, -0.1, 0.5, -0.4];
            for x in inputs() {
                if x.len() + 1 < $min + 1 {
                    continue;
                }
                hvp_check(stringify!($f), |z| $g(z).1, |z| $g(z).1, &x, &v[..x.len()]);
                let (val, g) = $g(&x);
                let (val2, dot) = $j(&x, v[..x.len()].to_vec());
                let expect: f64 = g.iter().zip(&v).map(|(a, b)| a * b).sum();
                assert!((val - val2).abs() < 1e-12 * (1.0 + val.abs()));
                assert!(
                    (dot - expect).abs() < 1e-10 * (1.0 + expect.abs()),
                    "{} jvp",
                    stringify!($f)
                );
            }
        }
    };
}
gen_probe!(
    p_gen_stencil,
    gen_stencil,
    gen_stencil_grad,
    gen_stencil_jvp,
    2
);
gen_probe!(p_gen_tape, gen_tape, gen_tape_grad, gen_tape_jvp, 0);
gen_probe!(
    p_gen_window_prod,
    gen_window_prod,
    gen_window_prod_grad,
    gen_window_prod_jvp,
    1
);

#[differentiable]
fn two_arrays_window(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() {
        s += x[i] * y[i - 1] - y[i] * x[i - 1];
    }
    s
}
#[test]
fn p_two_arrays_window() {
    let z = [0.5, -0.4, 1.1, 0.2, 0.9, 0.1];
    let (_, (gx, gy)) = two_arrays_window_grad(&z[..3], &z[3..]);
    let mut g = gx.clone();
    g.extend(gy);
    fd(
        |z| two_arrays_window(&z[..3], &z[3..]),
        &z,
        &g,
        "two_arrays_window",
    );
}

#[differentiable]
fn fixed_array_window(x: [f64; 5]) -> f64 {
    let mut s = 0.0;
    for i in 1..4 {
        s += x[i - 1] * x[i + 1] + x[i].sin();
    }
    s
}
#[test]
fn p_fixed_array_window() {
    let x = [0.5, -0.4, 1.1, 0.2, 0.9];
    let (_, g) = fixed_array_window_grad(x);
    fd(
        |z| fixed_array_window([z[0], z[1], z[2], z[3], z[4]]),
        &x,
        &g,
        "fixed_array_window",
    );
}

#[differentiable]
fn window_in_branch_loop(x: &[f64], flag: bool) -> f64 {
    let mut s = 0.0;
    if flag {
        for i in 0..x.len() - 1 {
            s += x[i] * x[i + 1];
        }
    }
    s
}
#[test]
fn p_window_in_branch_loop() {
    for x in inputs().into_iter().skip(1) {
        for flag in [true, false] {
            let (_, g) = window_in_branch_loop_grad(&x, flag);
            fd(
                |z| window_in_branch_loop(z, flag),
                &x,
                &g,
                "window_in_branch_loop",
            );
        }
    }
}

#[differentiable]
fn param_range(x: &[f64], a: usize, b: usize) -> f64 {
    let mut s = 0.0;
    for i in a..b {
        s += x[i] * x[i + 1] * x[i - 1];
    }
    s
}
#[test]
fn p_param_range() {
    let x = [0.5, -0.4, 1.1, 0.2, 0.9, 0.1];
    for (a, b) in [(1, 5), (3, 3), (4, 2), (2, 3), (1, 2), (4, 5)] {
        let (_, g) = param_range_grad(&x, a, b);
        fd(|z| param_range(z, a, b), &x, &g, "param_range");
    }
}

#[differentiable]
fn local_arr_outer(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 0..2 {
        let mut a = vec![0.0; n];
        for i in 0..n {
            a[i] = x[i] * (k as f64 + 1.0) + s;
        }
        for i in 1..n {
            s += a[i] * a[i - 1];
        }
    }
    s
}
probe!(p_local_arr_outer, local_arr_outer, local_arr_outer_grad, 1);

#[differentiable]
fn only_index_written_len(x: &[f64]) -> f64 {
    let mut a = vec![0.0; 4];
    for i in 0..4 {
        a[i] = x[i % x.len()].exp();
    }
    let mut s = 0.0;
    for i in 0..a.len() - 1 {
        s += a[i] * a[i + 1];
    }
    s
}
probe!(
    p_only_index_written_len,
    only_index_written_len,
    only_index_written_len_grad,
    1
);

#[differentiable]
fn mut_end(x: &[f64]) -> f64 {
    let mut m = x.len() - 1;
    let mut s = 0.0;
    for i in 0..m {
        s += x[i] * x[i + 1];
        m -= 1;
    }
    s + m as f64
}
probe!(p_mut_end, mut_end, mut_end_grad, 1);

#[differentiable]
fn mut_end_scaled(x: &[f64]) -> f64 {
    let mut m = x.len() - 1;
    let mut s = 0.0;
    for i in 0..m {
        s += x[i] * x[i + 1];
        m -= 1;
    }
    s * s + m as f64
}
probe!(p_mut_end_scaled, mut_end_scaled, mut_end_scaled_grad, 1);

#[differentiable]
fn mut_start(x: &[f64]) -> f64 {
    let mut k = 1;
    let mut s = 0.0;
    for i in k..x.len() {
        s += x[i] * x[i - 1];
        k += 1;
    }
    s * s + k as f64
}
probe!(p_mut_start, mut_start, mut_start_grad, 1);

#[differentiable]
fn mut_start_fused(x: &[f64]) -> f64 {
    let mut k = 1;
    let mut s = 0.0;
    for i in k..x.len() {
        s += x[i] * x[i - 1];
        k += 1;
    }
    s + k as f64
}
probe!(p_mut_start_fused, mut_start_fused, mut_start_fused_grad, 1);

#[differentiable]
fn inactive_counter(x: &[f64]) -> f64 {
    let mut c = 0.5;
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * c + x[i].exp() * k as f64;
        c = c * 1.5 + 1.0;
        k += 2;
    }
    s * s
}
probe!(
    p_inactive_counter,
    inactive_counter,
    inactive_counter_grad,
    0
);

#[differentiable]
fn inactive_counter_fused(x: &[f64]) -> f64 {
    let mut c = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin() * c;
        c = c * 1.5 + 1.0;
    }
    s
}
probe!(
    p_inactive_counter_fused,
    inactive_counter_fused,
    inactive_counter_fused_grad,
    0
);

#[differentiable]
fn step_tape(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in (0..x.len()).step_by(2) {
        p = p * x[i].exp().sqrt() + x[i].atan();
    }
    p
}
probe!(p_step_tape, step_tape, step_tape_grad, 0);

#[differentiable]
fn rev_tape(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in (0..x.len()).rev() {
        p = p * x[i].tanh() + x[i].powf(2.0);
    }
    p
}
probe!(p_rev_tape, rev_tape, rev_tape_grad, 0);

#[differentiable]
fn incl_tape(x: &[f64]) -> f64 {
    let mut p = 1.0;
    if x.len() == 0 {
        return p;
    }
    for i in 0..=x.len() - 1 {
        p = p * x[i].cosh().ln() + 0.25;
    }
    p
}
probe!(p_incl_tape, incl_tape, incl_tape_grad, 0);

#[differentiable]
fn var_len_local(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut w = vec![0.0; i + 2];
        for j in 0..=i {
            w[j] = x[j] * x[i];
        }
        w[i + 1] = x[i].exp();
        for j in 0..i + 1 {
            s += w[j] * w[j + 1];
        }
    }
    s
}
probe!(p_var_len_local, var_len_local, var_len_local_grad, 0);

#[differentiable]
fn literal_in_loop(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..x.len() {
        let w = [x[i], p, x[i] * p];
        let mut t = 0.0;
        for j in 1..3 {
            t += w[j - 1] * w[j];
        }
        p = t.sin() + 1.0;
    }
    p
}
probe!(p_literal_in_loop, literal_in_loop, literal_in_loop_grad, 0);

#[differentiable]
fn vec_in_branch_read_offsets(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            let w = vec![x[i] * s; 4];
            let mut t = 0.0;
            for j in 0..3 {
                t += w[j] * w[j + 1] * (j as f64);
            }
            s = t + 0.5;
        } else {
            let mut a = [0.0; 3];
            a[0] = s;
            a[2] = x[i].exp();
            s = a[0] * a[2] + a[1];
        }
    }
    s
}
probe!(
    p_vec_in_branch_read_offsets,
    vec_in_branch_read_offsets,
    vec_in_branch_read_offsets_grad,
    0
);

#[differentiable]
fn inner_break(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut t = 0.0;
        for j in 0..x.len() {
            if j > i + 1 {
                break;
            }
            t += x[j] * x[i].sin();
        }
        s += t;
    }
    s * s
}
probe!(p_inner_break, inner_break, inner_break_grad, 0);

#[differentiable]
fn inner_break_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut t = 1.0;
        let mut j = 0;
        while j < x.len() {
            if j > i {
                break;
            }
            t = t * x[j].cos() + x[i];
            j += 1;
        }
        s += t;
    }
    s
}
probe!(
    p_inner_break_fused,
    inner_break_fused,
    inner_break_fused_grad,
    0
);

#[differentiable(order = 2)]
fn stencil2(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        s += (x[i + 1] - 2.0 * x[i] + x[i - 1]).powi(2) * x[i].exp();
    }
    s
}
#[test]
fn p_stencil2_hessian() {
    let x = [0.5, -0.4, 1.1, 0.2, 0.9];
    let (v, g, h) = stencil2_hessian(&x);
    assert!((v - stencil2(&x)).abs() < 1e-12);
    fd(stencil2, &x, &g, "stencil2");
    for k in 0..x.len() {
        let row = &h[k];
        fd(|z| stencil2_grad(z).1[k], &x, row, "stencil2 hessian");
    }
}

#[differentiable]
fn loop_loop_scalar(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        t += x[i] * x[i];
    }
    s * t
}
probe!(
    p_loop_loop_scalar,
    loop_loop_scalar,
    loop_loop_scalar_grad,
    0
);

#[differentiable]
fn fused_reads_nested_param(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut t = 0.0;
        for j in 0..y.len() {
            t += y[j] * x[i];
        }
        s += t * t;
    }
    s
}
#[test]
fn p_fused_reads_nested_param() {
    let z = [0.5, -0.4, 1.1, 0.2, 0.9];
    let (_, (gx, gy)) = fused_reads_nested_param_grad(&z[..2], &z[2..]);
    let mut g = gx.clone();
    g.extend(gy);
    fd(
        |z| fused_reads_nested_param(&z[..2], &z[2..]),
        &z,
        &g,
        "fused_reads_nested_param",
    );
}

#[differentiable]
fn match_window(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 1..x.len() - 1 {
        let v = match i % 3 {
            0 => x[i - 1] * x[i + 1],
            1 | 2 => x[i].sin() - x[i + 1],
            _ => 0.0,
        };
        s -= v;
    }
    s
}
probe!(p_match_window, match_window, match_window_grad, 2);

#[differentiable]
fn if_expr_window(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += if x[i] > c { x[i + 1] } else { x[i] * x[i + 1] };
    }
    s
}
#[test]
fn p_if_expr_window() {
    for x in inputs().into_iter().skip(1) {
        let (_, (g, _)) = if_expr_window_grad(&x, 0.1);
        fd(|z| if_expr_window(z, 0.1), &x, &g, "if_expr_window");
    }
}
type Grad = fn(&[f64]) -> (f64, Vec<f64>);
type Jvp = fn(&[f64], Vec<f64>) -> (f64, f64);
type Primal = fn(&[f64]) -> f64;

/// Functions of one slice, at least `min` long, with their gradient and forward mode.
fn slice_functions() -> Vec<(&'static str, Primal, Grad, Jvp, usize)> {
    vec![
        (
            "acc_returned",
            acc_returned,
            acc_returned_grad,
            acc_returned_jvp,
            0,
        ),
        (
            "acc_squared",
            acc_squared,
            acc_squared_grad,
            acc_squared_jvp,
            0,
        ),
        ("two_fused", two_fused, two_fused_grad, two_fused_jvp, 0),
        ("windows3", windows3, windows3_grad, windows3_jvp, 2),
        (
            "windows3_scaled",
            windows3_scaled,
            windows3_scaled_grad,
            windows3_scaled_jvp,
            2,
        ),
        (
            "window_branch",
            window_branch,
            window_branch_grad,
            window_branch_jvp,
            2,
        ),
        (
            "window_product",
            window_product,
            window_product_grad,
            window_product_jvp,
            1,
        ),
        (
            "window_width5",
            window_width5,
            window_width5_grad,
            window_width5_jvp,
            4,
        ),
        (
            "window_width6",
            window_width6,
            window_width6_grad,
            window_width6_jvp,
            5,
        ),
        (
            "window_nested",
            window_nested,
            window_nested_grad,
            window_nested_jvp,
            1,
        ),
        (
            "window_inner",
            window_inner,
            window_inner_grad,
            window_inner_jvp,
            1,
        ),
        ("rev_index", rev_index, rev_index_grad, rev_index_jvp, 1),
        ("incl_index", incl_index, incl_index_grad, incl_index_jvp, 2),
        ("step_index", step_index, step_index_grad, step_index_jvp, 1),
        (
            "with_continue",
            with_continue,
            with_continue_grad,
            with_continue_jvp,
            1,
        ),
        ("with_break", with_break, with_break_grad, with_break_jvp, 1),
        (
            "local_in_branch",
            local_in_branch,
            local_in_branch_grad,
            local_in_branch_jvp,
            0,
        ),
        (
            "trans_branch",
            trans_branch,
            trans_branch_grad,
            trans_branch_jvp,
            0,
        ),
        (
            "nested_inner_tape",
            nested_inner_tape,
            nested_inner_tape_grad,
            nested_inner_tape_jvp,
            0,
        ),
        (
            "early_in_loop",
            early_in_loop,
            early_in_loop_grad,
            early_in_loop_jvp,
            0,
        ),
        (
            "fused_nested_tape",
            fused_nested_tape,
            fused_nested_tape_grad,
            fused_nested_tape_jvp,
            0,
        ),
        (
            "inactive_counter",
            inactive_counter,
            inactive_counter_grad,
            inactive_counter_jvp,
            0,
        ),
        (
            "var_len_local",
            var_len_local,
            var_len_local_grad,
            var_len_local_jvp,
            0,
        ),
        // Not `literal_in_loop`: a composition of `sin`s over up to 8 iterations, whose gradient reaches 50
        // and whose third derivatives make central differences err by up to 4e-4 at random points (its
        // gradient equals forward mode on `Dual` to 1e-12 there); it is checked at fixed points instead.
        (
            "vec_in_branch_read_offsets",
            vec_in_branch_read_offsets,
            vec_in_branch_read_offsets_grad,
            vec_in_branch_read_offsets_jvp,
            0,
        ),
        (
            "inner_break",
            inner_break,
            inner_break_grad,
            inner_break_jvp,
            0,
        ),
        (
            "match_window",
            match_window,
            match_window_grad,
            match_window_jvp,
            2,
        ),
        (
            "local_arr_outer",
            local_arr_outer,
            local_arr_outer_grad,
            local_arr_outer_jvp,
            1,
        ),
    ]
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(2026), ..ProptestConfig::default() })]

    /// Every function at random inputs: value, gradient against central differences, `_jvp` against
    /// `_grad` for a random tangent.
    #[test]
    fn random_inputs(
        x in prop::collection::vec(-1.5f64..1.5, 0..9),
        v in prop::collection::vec(-1.0f64..1.0, 9),
    ) {
        for (name, f, g, j, min) in slice_functions() {
            if x.len() < min.max(1) {
                continue;
            }
            let (val, grad) = g(&x);
            prop_assert!((val - f(&x)).abs() <= 1e-12 * (1.0 + val.abs()), "{} value", name);
            let check = check_gradient(f, &x, &grad);
            // Kinks (branches on x[i]) make central differences unreliable within a step of them, and so do
            // compositions that blow up (`vec_in_branch_read_offsets` squares its carried value: at 1e14,
            // central differences agree to 4 digits only); `_jvp` is checked against `_grad` either way.
            let tame = val.abs() < 1e6;
            if tame && x.iter().all(|t| t.abs() > 1e-3 && (t + 0.5).abs() > 1e-3 && (t + 0.65).abs() > 1e-3) {
                prop_assert!(check.is_ok(1e-5), "{} at {:?}: {}", name, x, check);
            }
            let t = &v[..x.len()];
            let (val2, dot) = j(&x, t.to_vec());
            let expect: f64 = grad.iter().zip(t).map(|(a, b)| a * b).sum();
            prop_assert!((val2 - val).abs() <= 1e-12 * (1.0 + val.abs()));
            prop_assert!((dot - expect).abs() <= 1e-9 * (1.0 + expect.abs()), "{} jvp {} vs {}", name, dot, expect);
        }
    }
}
