//! Fifty-odd bodies a user writes over a slice (session 30's hand probe of the forms API.md lists: iterator
//! chains, closures, labels, matches, `Vec`s, sub-slices, float methods), each at `order = 2`: the value
//! against the function itself, the gradient against central differences, the Hessian against differences
//! of the gradient, at three points. The bodies are as a user writes them, so clippy's preferences are not
//! applied to them.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec
)]

mod common;

use autodiff::differentiable;
use common::{assert_fd_gradient, assert_hessian_fd};

#[differentiable(order = 2)]
fn annotated(x: &[f64]) -> f64 {
    let n: usize = x.len();
    let mut s: f64 = 0.0;
    for i in 0..n {
        let t: f64 = x[i] * (i as f64 + 1.0);
        s += t * t;
    }
    s
}

#[differentiable(order = 2)]
fn elem_compound(x: &[f64]) -> f64 {
    let mut a = [1.0; 5];
    for i in 0..5 {
        a[i] *= x[i];
        a[i] += x[(i + 1) % 5];
        a[i] /= 2.0 + x[i] * x[i];
        a[i] -= 0.1;
    }
    a.iter().sum()
}

#[differentiable(order = 2)]
fn powf_powi(x: &[f64]) -> f64 {
    let n = x.len() as i32;
    x[0].abs().powf(x[1]) + x[2].powi(n - 2) + 2.0_f64.powf(x[3]) + f64::powi(x[4], 2)
}

#[differentiable(order = 2)]
fn ufcs(x: &[f64]) -> f64 {
    f64::max(x[0], x[1]) + f64::sqrt(x[2] * x[2] + 1.0) + f64::exp(x[3]) * f64::sin(x[4])
}

#[differentiable(order = 2)]
fn consts(x: &[f64]) -> f64 {
    std::f64::consts::PI * x[0] + x[1] * f64::EPSILON + (x[2] * std::f64::consts::E).abs().ln_1p()
}

#[differentiable(order = 2)]
fn array_pattern(x: &[f64]) -> f64 {
    let a = [x[0] * x[1], x[2] + x[3]];
    let [p, q] = a;
    p * q + x[4]
}

#[differentiable(order = 2)]
fn rev_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().rev().enumerate() {
        s += (i as f64) * v * v;
    }
    s
}

#[differentiable(order = 2)]
fn collect_vec(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    v.iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>()
}

#[differentiable(order = 2)]
fn skip_step(x: &[f64]) -> f64 {
    x.iter().skip(1).step_by(2).map(|v| v.sin()).sum::<f64>()
}

#[differentiable(order = 2)]
fn take_n(x: &[f64]) -> f64 {
    x.iter().take(3).map(|v| v.exp()).sum::<f64>().ln()
}

#[differentiable(order = 2)]
fn windows_diff(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>()
}

#[differentiable(order = 2)]
fn chunks_prod(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c.iter().product::<f64>();
    }
    s
}

#[differentiable(order = 2)]
fn rev_step(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev().step_by(2) {
        s = s * 0.5 + x[i];
    }
    s * s
}

#[differentiable(order = 2)]
fn while_idx(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut s = 1.0;
    while i < x.len() {
        s *= 1.0 + x[i] * 0.1;
        i += 1;
    }
    s
}

#[differentiable(order = 2)]
fn closure_block(x: &[f64]) -> f64 {
    let g = |a: f64, b: f64| {
        let t = a * b;
        t.tanh() + a
    };
    let mut s = 0.0;
    for i in 1..x.len() {
        s += g(x[i - 1], x[i]);
    }
    s
}

#[differentiable(order = 2)]
fn closure_untyped(x: &[f64]) -> f64 {
    let sq = |v| v * v;
    sq(x[0]) + sq(x[1] + x[2])
}

#[differentiable(order = 2)]
fn mean_var(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt()
}

#[differentiable(order = 2)]
fn enumerate_sum(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| (i as f64 + 1.0) * v.cos())
        .sum::<f64>()
}

#[differentiable(order = 2)]
fn if_expr_value(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += if v > 0.0 {
            v.ln_1p()
        } else if v < -0.5 {
            -v
        } else {
            v * v
        };
    }
    s
}

#[differentiable(order = 2)]
fn match_range(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate() {
        s += match i {
            0 => v,
            1..=2 => v * v,
            _ => v.sin(),
        };
    }
    s
}

#[differentiable(order = 2)]
fn shadow_types(x: &[f64]) -> f64 {
    let s = x.len();
    let s = s as f64 * x[0];
    let s = [s, x[1]];
    s[0] * s[1]
}

#[differentiable(order = 2)]
fn nested_vec(x: &[f64]) -> f64 {
    let mut m = vec![vec![0.0; 3]; 2];
    for i in 0..2 {
        for j in 0..3 {
            m[i][j] = x[i + j] * (j as f64);
        }
    }
    m.iter().map(|r| r.iter().sum::<f64>()).product::<f64>()
}

#[differentiable(order = 2)]
fn min_max_chain(x: &[f64]) -> f64 {
    let lo = x.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (hi - lo) * x[2]
}

#[differentiable(order = 2)]
fn labeled(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        for j in 0..x.len() {
            if j > i {
                continue 'outer;
            }
            s += x[i] * x[j];
            if s > 3.0 {
                break 'outer;
            }
        }
    }
    s
}

#[differentiable(order = 2)]
fn tuple_swap(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1]);
    for _ in 0..3 {
        let t = a;
        a = b + 0.5 * a;
        b = t * x[2];
    }
    a * b
}

#[differentiable(order = 2)]
fn sub_slice_call(x: &[f64]) -> f64 {
    let h = &x[1..4];
    h.iter().map(|v| v * v).sum::<f64>() * x[0] + x[4..].iter().sum::<f64>()
}

#[differentiable(order = 2)]
fn dot_len_div(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n / 2 {
        s += x[i] * x[n - 1 - i];
    }
    s / n as f64
}

#[differentiable(order = 2)]
fn logsumexp_fold(x: &[f64]) -> f64 {
    let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    m + x.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

#[differentiable(order = 2)]
fn signum_floor(x: &[f64]) -> f64 {
    x[0].signum() * x[1] + x[2].floor() * x[3] + x[4].round() + x[0] * x[0]
}

#[differentiable(order = 2)]
fn recip_misc(x: &[f64]) -> f64 {
    x[0].recip()
        + x[1].exp2()
        + x[2].exp_m1()
        + x[3].abs().log(3.0)
        + (x[4] + 2.0).log10()
        + (x[4] + 2.0).log2()
}

#[differentiable(order = 2)]
fn hyper(x: &[f64]) -> f64 {
    x[0].sinh()
        + x[1].cosh()
        + x[2].tanh()
        + x[3].asinh()
        + (x[4] * 0.5).atanh()
        + (x[0].abs() + 1.0).acosh()
        + (x[1] * 0.5).asin()
        + (x[2] * 0.5).acos()
        + x[3].atan()
}

#[differentiable(order = 2)]
fn early_return_in_if(x: &[f64]) -> f64 {
    if x[0] > 0.5 {
        return x[1] * x[2];
    }
    let y = x[3] * x[0];
    y.exp()
}

#[differentiable(order = 2)]
fn vec_push_local(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for &a in x {
        if a > 0.0 {
            v.push(a * a);
        }
    }
    let mut s = 0.0;
    for b in &v {
        s += b.sqrt() * x[0];
    }
    s
}

#[differentiable(order = 2)]
fn filter_map_it(x: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .map(|v| v.sqrt())
        .sum::<f64>()
        + x[0]
}

#[differentiable(order = 2)]
fn array_literal_iter(x: &[f64]) -> f64 {
    [x[0], x[1] * 2.0, x[2]].iter().sum::<f64>() * x[3]
}

#[differentiable(order = 2)]
fn into_iter_array(x: &[f64]) -> f64 {
    let a = [x[0], x[1], x[2]];
    let mut s = 0.0;
    for v in a {
        s += v * v;
    }
    s
}

#[differentiable(order = 2)]
fn to_vec_it(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v[0] = v[0] * v[1];
    v.iter().sum::<f64>()
}

#[differentiable(order = 2)]
fn first_last(x: &[f64]) -> f64 {
    x.first().unwrap() * x.last().unwrap() + x[2]
}

#[differentiable(order = 2)]
fn first_copied(x: &[f64]) -> f64 {
    x.first().copied().unwrap_or(0.0) * x[1]
}

#[differentiable(order = 2)]
fn all_any(x: &[f64]) -> f64 {
    if x.iter().all(|&v| v.abs() < 2.0) {
        x[0] * x[1]
    } else {
        x[2]
    }
}

#[differentiable(order = 2)]
fn iter_max_total(x: &[f64]) -> f64 {
    *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap() * x[0]
}

#[differentiable(order = 2)]
fn sum_of_squares_range(x: &[f64]) -> f64 {
    (0..x.len()).map(|i| x[i] * x[i] * (i as f64)).sum::<f64>()
}

#[differentiable(order = 2)]
fn zip3(x: &[f64]) -> f64 {
    let w = [0.5, 1.5, -1.0, 2.0, 0.25];
    x.iter()
        .zip(w.iter())
        .zip(x.iter().skip(1))
        .map(|((a, b), c)| a * b * c)
        .sum::<f64>()
}

#[differentiable(order = 2)]
fn iter_rev_fold(x: &[f64]) -> f64 {
    x.iter().rev().fold(0.0, |acc, &v| acc * 0.5 + v)
}

#[differentiable(order = 2)]
fn copied_product(x: &[f64]) -> f64 {
    x.iter().copied().map(|v| 1.0 + 0.1 * v).product::<f64>()
}

#[differentiable(order = 2)]
fn count_div(x: &[f64]) -> f64 {
    let n = x.iter().filter(|&&v| v > 0.0).count();
    x.iter().sum::<f64>() / (n as f64 + 1.0)
}

#[differentiable(order = 2)]
fn swap_it(x: &[f64]) -> f64 {
    let mut v = [x[0], x[1], x[2]];
    v.swap(0, 2);
    v[0] * 2.0 + v[2]
}

#[differentiable(order = 2)]
fn abs_sub(x: &[f64]) -> f64 {
    let d = x[0] - x[1];
    d.abs() + (x[2] - x[3]).abs().sqrt()
}

#[differentiable(order = 2)]
fn min_max_method(x: &[f64]) -> f64 {
    x[0].max(x[1]).min(x[2] + 1.0) * x[3]
}

#[differentiable(order = 2)]
fn vec_macro_list(x: &[f64]) -> f64 {
    let v = vec![x[0], x[1] * x[2], 3.0];
    v[0] * v[1] + v[2]
}

#[differentiable(order = 2)]
fn iter_sum_ref(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let p: f64 = x.iter().map(|v| v + 1.0).product();
    s * p
}

#[differentiable(order = 2)]
fn len_loop_neg(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc -= x[i] / (1.0 + x[i] * x[i]);
    }
    -acc
}

#[differentiable(order = 2)]
fn euclid(x: &[f64]) -> f64 {
    let r = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    x.iter().map(|v| v / r).map(|v| v.powi(3)).sum::<f64>()
}

type Value = fn(&[f64]) -> f64;
type Gradient = fn(&[f64]) -> (f64, Vec<f64>);
type Hessian = fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>);

#[test]
fn value_gradient_and_hessian_by_differences() {
    let all: &[(&str, Value, Gradient, Hessian)] = &[
        ("annotated", annotated, annotated_grad, annotated_hessian),
        (
            "elem_compound",
            elem_compound,
            elem_compound_grad,
            elem_compound_hessian,
        ),
        ("powf_powi", powf_powi, powf_powi_grad, powf_powi_hessian),
        ("ufcs", ufcs, ufcs_grad, ufcs_hessian),
        ("consts", consts, consts_grad, consts_hessian),
        (
            "array_pattern",
            array_pattern,
            array_pattern_grad,
            array_pattern_hessian,
        ),
        (
            "rev_enumerate",
            rev_enumerate,
            rev_enumerate_grad,
            rev_enumerate_hessian,
        ),
        (
            "collect_vec",
            collect_vec,
            collect_vec_grad,
            collect_vec_hessian,
        ),
        ("skip_step", skip_step, skip_step_grad, skip_step_hessian),
        ("take_n", take_n, take_n_grad, take_n_hessian),
        (
            "windows_diff",
            windows_diff,
            windows_diff_grad,
            windows_diff_hessian,
        ),
        (
            "chunks_prod",
            chunks_prod,
            chunks_prod_grad,
            chunks_prod_hessian,
        ),
        ("rev_step", rev_step, rev_step_grad, rev_step_hessian),
        ("while_idx", while_idx, while_idx_grad, while_idx_hessian),
        (
            "closure_block",
            closure_block,
            closure_block_grad,
            closure_block_hessian,
        ),
        (
            "closure_untyped",
            closure_untyped,
            closure_untyped_grad,
            closure_untyped_hessian,
        ),
        ("mean_var", mean_var, mean_var_grad, mean_var_hessian),
        (
            "enumerate_sum",
            enumerate_sum,
            enumerate_sum_grad,
            enumerate_sum_hessian,
        ),
        (
            "if_expr_value",
            if_expr_value,
            if_expr_value_grad,
            if_expr_value_hessian,
        ),
        (
            "match_range",
            match_range,
            match_range_grad,
            match_range_hessian,
        ),
        (
            "shadow_types",
            shadow_types,
            shadow_types_grad,
            shadow_types_hessian,
        ),
        (
            "nested_vec",
            nested_vec,
            nested_vec_grad,
            nested_vec_hessian,
        ),
        (
            "min_max_chain",
            min_max_chain,
            min_max_chain_grad,
            min_max_chain_hessian,
        ),
        ("labeled", labeled, labeled_grad, labeled_hessian),
        (
            "tuple_swap",
            tuple_swap,
            tuple_swap_grad,
            tuple_swap_hessian,
        ),
        (
            "sub_slice_call",
            sub_slice_call,
            sub_slice_call_grad,
            sub_slice_call_hessian,
        ),
        (
            "dot_len_div",
            dot_len_div,
            dot_len_div_grad,
            dot_len_div_hessian,
        ),
        (
            "logsumexp_fold",
            logsumexp_fold,
            logsumexp_fold_grad,
            logsumexp_fold_hessian,
        ),
        (
            "signum_floor",
            signum_floor,
            signum_floor_grad,
            signum_floor_hessian,
        ),
        (
            "recip_misc",
            recip_misc,
            recip_misc_grad,
            recip_misc_hessian,
        ),
        ("hyper", hyper, hyper_grad, hyper_hessian),
        (
            "early_return_in_if",
            early_return_in_if,
            early_return_in_if_grad,
            early_return_in_if_hessian,
        ),
        (
            "vec_push_local",
            vec_push_local,
            vec_push_local_grad,
            vec_push_local_hessian,
        ),
        (
            "filter_map_it",
            filter_map_it,
            filter_map_it_grad,
            filter_map_it_hessian,
        ),
        (
            "array_literal_iter",
            array_literal_iter,
            array_literal_iter_grad,
            array_literal_iter_hessian,
        ),
        (
            "into_iter_array",
            into_iter_array,
            into_iter_array_grad,
            into_iter_array_hessian,
        ),
        ("to_vec_it", to_vec_it, to_vec_it_grad, to_vec_it_hessian),
        (
            "first_last",
            first_last,
            first_last_grad,
            first_last_hessian,
        ),
        (
            "first_copied",
            first_copied,
            first_copied_grad,
            first_copied_hessian,
        ),
        ("all_any", all_any, all_any_grad, all_any_hessian),
        (
            "iter_max_total",
            iter_max_total,
            iter_max_total_grad,
            iter_max_total_hessian,
        ),
        (
            "sum_of_squares_range",
            sum_of_squares_range,
            sum_of_squares_range_grad,
            sum_of_squares_range_hessian,
        ),
        ("zip3", zip3, zip3_grad, zip3_hessian),
        (
            "iter_rev_fold",
            iter_rev_fold,
            iter_rev_fold_grad,
            iter_rev_fold_hessian,
        ),
        (
            "copied_product",
            copied_product,
            copied_product_grad,
            copied_product_hessian,
        ),
        ("count_div", count_div, count_div_grad, count_div_hessian),
        ("swap_it", swap_it, swap_it_grad, swap_it_hessian),
        ("abs_sub", abs_sub, abs_sub_grad, abs_sub_hessian),
        (
            "min_max_method",
            min_max_method,
            min_max_method_grad,
            min_max_method_hessian,
        ),
        (
            "vec_macro_list",
            vec_macro_list,
            vec_macro_list_grad,
            vec_macro_list_hessian,
        ),
        (
            "iter_sum_ref",
            iter_sum_ref,
            iter_sum_ref_grad,
            iter_sum_ref_hessian,
        ),
        (
            "len_loop_neg",
            len_loop_neg,
            len_loop_neg_grad,
            len_loop_neg_hessian,
        ),
        ("euclid", euclid, euclid_grad, euclid_hessian),
    ];
    let points = [
        [0.3, -0.7, 0.45, 1.2, -0.15],
        [1.1, 0.4, -0.9, 0.25, 0.65],
        [-0.2, 0.8, 0.1, -1.3, 0.55],
    ];
    for &(name, f, grad, hessian) in all {
        for p in &points {
            let (v, g) = grad(p);
            assert_eq!(v, f(p), "{name} value at {p:?}");
            assert_fd_gradient(f, p, &g, name);
            let (v2, g2, h) = hessian(p);
            assert_eq!(
                (v2, &g2),
                (v, &g),
                "{name}: f_hessian's value and gradient at {p:?}"
            );
            assert_hessian_fd(&h, |x| grad(x).1, p, 1e-5, name);
        }
    }
}
