//! A trust probe written as a new user would: the small functions of google/tangent's test catalogue
//! (`tests/functions.py`) and plain numeric code in the style of JAX's grad tests, ported to Rust, and
//! the idioms numeric Rust is written in (`match` on integers, `if let`, compound `while` conditions,
//! early returns from nested loops, shadowing, helpers returning tuples, float method chains, iterator
//! chains, closures, `const` arrays, nested arrays, `Vec<Vec<f64>>`, output parameters, calls across
//! modules, custom gradients and methods of parameter structs).
//!
//! Every derivative is checked against oracles that share no code with the macro or `autodiff-core`:
//! central differences written in this file, and derivatives worked out by hand where they are short;
//! at many points drawn by a small deterministic generator. `f_jvp` is checked against `f_grad` along a
//! random tangent, `f_grad_into` against `f_grad` with its buffers filled with NaN first, and `f_hessian`
//! (`order = 2`) against central differences of `f_grad`.

// The forms users (and the ported Python) write are what these programs test: indexed loops, explicit
// returns, `let` then return, `a = a * 3.0`, late initialisation, a counter beside a `for`, `max().min()`,
// `n % 2 == 0`, an element-by-element copy, Tangent's `a / a` and `a - a`; the probe's function-pointer
// parameters spell out the generated signatures.
#![allow(
    clippy::eq_op,
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::let_and_return,
    clippy::assign_op_pattern,
    clippy::needless_late_init,
    clippy::explicit_counter_loop,
    clippy::manual_clamp,
    clippy::manual_is_multiple_of,
    clippy::manual_memcpy,
    clippy::type_complexity
)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::*;

// ---------------------------------------------------------------------------------------------------
// The oracle: a deterministic generator, central differences, tolerant comparisons.
// ---------------------------------------------------------------------------------------------------

const POINTS: usize = 40;

// ---------------------------------------------------------------------------------------------------
// google/tangent tests/functions.py, ported.
// ---------------------------------------------------------------------------------------------------

mod tangent_catalogue {
    use super::*;

    #[differentiable(order = 2)]
    pub fn identity(a: f64) -> f64 {
        a
    }

    #[differentiable(order = 2)]
    pub fn unary_sub(a: f64) -> f64 {
        -a
    }

    #[differentiable(order = 2)]
    pub fn sum_all(x: &[f64]) -> f64 {
        x.iter().sum()
    }

    /// The parameter is shadowed by a value of another type.
    #[differentiable(order = 2)]
    pub fn overwrite_call(x: &[f64]) -> f64 {
        let x: f64 = x.iter().sum();
        let x = x * x;
        x
    }

    #[differentiable(order = 2)]
    pub fn tanh(a: f64) -> f64 {
        a.tanh()
    }

    #[differentiable(order = 2)]
    pub fn i_assign(a: f64) -> f64 {
        let b = a;
        b
    }

    #[differentiable(order = 2)]
    pub fn increment(a: f64) -> f64 {
        a + 1.0
    }

    #[differentiable(order = 2)]
    pub fn saxpy(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }

    #[differentiable(order = 2)]
    pub fn mul(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn add(a: f64, b: f64) -> f64 {
        a + b
    }

    #[differentiable(order = 2)]
    pub fn saxpy_call(a: f64, b: f64, c: f64) -> f64 {
        add(mul(a, b), c)
    }

    #[differentiable]
    pub fn saxpy_anf(a: f64, b: f64, c: f64) -> f64 {
        let t1 = a * b;
        let t2 = t1 + c;
        t2
    }

    #[differentiable]
    pub fn saxpy_overwrite(a: f64, b: f64, c: f64) -> f64 {
        let mut t = a * b;
        t = t + c;
        t
    }

    /// Locals named like the generated items' parameters and the derivative of `a`.
    #[differentiable(order = 2)]
    pub fn gradname_aliasing(a: f64) -> f64 {
        let da = a * a;
        let d_ret = da + 1.0;
        let tangent = d_ret * a;
        let grad = tangent - a;
        let v = grad;
        v
    }

    #[differentiable(order = 2)]
    pub fn overwrite_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
        } else {
            a = a * 2.0;
        }
        a
    }

    #[differentiable]
    pub fn binop_mul1(a: f64) -> f64 {
        a * 3.0
    }

    #[differentiable]
    pub fn binop_mul2(a: f64) -> f64 {
        3.0 * a
    }

    #[differentiable(order = 2)]
    pub fn binop_mul3(a: f64) -> f64 {
        a * a
    }

    #[differentiable]
    pub fn binop_div1(a: f64) -> f64 {
        a / 3.0
    }

    #[differentiable(order = 2)]
    pub fn binop_div2(a: f64) -> f64 {
        3.0 / a
    }

    #[differentiable(order = 2)]
    pub fn binop_div3(a: f64) -> f64 {
        a / a
    }

    #[differentiable]
    pub fn binop_sub1(a: f64) -> f64 {
        a - 3.0
    }

    #[differentiable]
    pub fn binop_sub2(a: f64) -> f64 {
        3.0 - a
    }

    #[differentiable(order = 2)]
    pub fn binop_sub3(a: f64) -> f64 {
        a - a
    }

    #[differentiable]
    pub fn binop_add1(a: f64) -> f64 {
        a + 3.0
    }

    #[differentiable]
    pub fn binop_add2(a: f64) -> f64 {
        3.0 + a
    }

    #[differentiable(order = 2)]
    pub fn binop_add3(a: f64) -> f64 {
        a + a
    }

    #[differentiable(order = 2)]
    pub fn nested_if(mut a: f64) -> f64 {
        if a > 0.0 {
            if a < 10.0 {
                a = a * a;
            }
        } else {
            a = 3.0 * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn multiarg_if(mut a: f64) -> f64 {
        let b = if a * a / 3.0 > 0.0 { 3.0 } else { 4.0 };
        a = a * b;
        if a < b - a * b {
            a = a * a;
        } else if a > b + 3.0 * a {
            if a / 2.0 < 0.0 {
                a = a / b;
            } else {
                a = a * b;
            }
        } else {
            a = -a;
        }
        a
    }

    #[differentiable]
    pub fn fn_multiple_return(a: f64) -> (f64, f64) {
        (2.0 * a, a)
    }

    #[differentiable(order = 2)]
    pub fn anf_list(a: f64) -> f64 {
        let b = [1.0, a * a, 2.0];
        b.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn deep_anf_list(x: &[f64]) -> f64 {
        let b = [1.0, x[0] * x[1] * x[2], 3.0];
        b.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn subscript1(x: &[f64]) -> f64 {
        let a = x[0];
        let b = x[1];
        a * b
    }

    /// numpy's in-place write, on an array taken by value.
    #[differentiable(order = 2)]
    pub fn subscript2(mut x: [f64; 3]) -> f64 {
        let a = x[0];
        let b = x[1];
        x[0] = a * b;
        x.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn subscript3(mut x: [f64; 3]) -> f64 {
        let y = [x[0].powf(2.0), x[1].powf(2.0), x[2].powf(2.0)];
        x[0] = y[1] * y[2];
        x.iter().zip(y.iter()).map(|(a, b)| a * b).sum()
    }

    #[differentiable(order = 2)]
    pub fn list_and_subscript(a: f64) -> f64 {
        let x = [1.0, a, 3.0];
        x[0] * x[1]
    }

    #[differentiable(order = 2)]
    pub fn serial_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * a;
        }
        a = a + a;
        if a < 0.0 {
            a = 3.0 * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn multivar_if(mut a: f64, b: f64) -> f64 {
        if a > b {
            a = a * a;
        } else {
            a = a * b;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_for(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = a * a;
        }
        a = 2.0 * a;
        for _ in 0..n + 1 {
            a = a * 3.0;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_ifthenfor(mut a: f64, n: usize) -> f64 {
        if a > 0.0 {
            a = a * a;
        }
        a = 2.0 * a;
        for _i in 0..n {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn serial_forthenif(mut a: f64, n: usize) -> f64 {
        for _i in 0..n {
            a = a * a;
        }
        a = 2.0 * a;
        if a > 0.0 {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn devilish_nested_if(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
            if a < 10.0 {
                a = a * a;
            } else {
                a = a * 2.0;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn overwrite_ifelse(mut a: f64) -> f64 {
        if a > 0.0 {
            a = a * 3.0;
        } else if 0.0 > a {
            a = a * 2.0;
        } else {
            a = 1.0 * a;
        }
        a
    }

    #[differentiable]
    pub fn overwrite_arg(mut a: f64) -> f64 {
        a = a * 3.0;
        a
    }

    #[differentiable]
    pub fn overwrite_non_arg(a: f64) -> f64 {
        let mut b = a;
        b = b * 3.0;
        b
    }

    #[differentiable(order = 2)]
    pub fn third_pow(a: f64) -> f64 {
        a * a * a
    }

    #[differentiable(order = 2)]
    pub fn direct_third_pow(a: f64) -> f64 {
        a.powi(3)
    }

    #[differentiable(order = 2)]
    pub fn iter_third_pow1(a: f64) -> f64 {
        let mut out = 1.0;
        for _ in 0..3 {
            out = out * a;
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn iter_third_pow2(a: f64) -> f64 {
        let mut out = a;
        for _ in 0..3 - 1 {
            out = out * a;
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn iterpower_static(mut a: f64) -> f64 {
        for _ in 0..3 {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn iterpower(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn cond_iterpower1(mut a: f64) -> f64 {
        for _ in 0..3 {
            if a < 20.0 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn cond_iterpower2(mut a: f64) -> f64 {
        if a < 20.0 {
            for _ in 0..3 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn superfor_iterpower(mut a: f64) -> f64 {
        for _ in 0..2 {
            for _ in 0..3 {
                a = a * a;
            }
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn super_iterpower(mut a: f64) -> f64 {
        for _ in 0..3 {
            a = a * a * a;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn numpy_mean(x: &[f64]) -> f64 {
        x.iter().sum::<f64>() / x.len() as f64
    }

    #[differentiable(order = 2)]
    pub fn numpy_exp2(a: f64) -> f64 {
        a.exp().exp()
    }

    #[differentiable(order = 2)]
    pub fn numpy_sqrt(a: f64) -> f64 {
        a.sqrt()
    }

    /// `label` is 0 or 1; `input · w + b` through `tanh`.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn logistic_regression(input: &[f64], label: f64, w: &[f64], b: f64) -> f64 {
        let h1: f64 = input.iter().zip(w).map(|(i, w)| i * w).sum::<f64>() + b;
        let prediction = 0.5 * (h1.tanh() + 1.0);
        let label_probability = prediction * label + (1.0 - prediction) * (1.0 - label);
        -label_probability.ln()
    }

    #[differentiable(order = 2)]
    pub fn rsqrt(t: f64) -> f64 {
        1.0 / t.sqrt()
    }

    #[differentiable(order = 2)]
    pub fn squared_difference(t1: f64, t2: f64) -> f64 {
        (t1 - t2) * (t1 - t2)
    }

    #[differentiable(order = 2)]
    pub fn maximum(t1: f64, t2: f64) -> f64 {
        t1.max(t2)
    }

    fn inner_fn_plain(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn inner_fn(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable(order = 2)]
    pub fn mul_with_call(a: f64, b: f64) -> f64 {
        inner_fn(a, b)
    }

    #[differentiable(order = 2)]
    pub fn if_mul_with_call(a: f64, b: f64) -> f64 {
        let o;
        if a > b {
            o = inner_fn(a, b);
        } else {
            o = inner_fn(b, a);
        }
        o
    }

    #[differentiable(order = 2)]
    pub fn iterpower_with_call(mut a: f64, n: usize) -> f64 {
        for _ in 0..n {
            a = inner_fn(a, a);
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn nested_call(a: f64, b: f64) -> f64 {
        mul_with_call(a, b)
    }

    #[differentiable(order = 2)]
    pub fn iterpower_with_nested_def(mut a: f64, n: usize) -> f64 {
        fn scaled(a: f64, n: f64) -> f64 {
            a * n
        }
        for _ in 0..n {
            a = scaled(a, a);
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn unpacking_args_saxpy(abc_packed_in_tuple: (f64, f64, f64)) -> f64 {
        let (a, b, c) = abc_packed_in_tuple;
        a * b + c
    }

    #[differentiable(order = 2)]
    pub fn passthru_pack(a: f64, b: f64, c: f64, i: usize) -> f64 {
        let x = [a, b, c];
        x[i]
    }

    #[differentiable(order = 2)]
    pub fn passthru_unpack(abc_packed_in_tuple: (f64, f64, f64)) -> f64 {
        let (a, _b, _c) = abc_packed_in_tuple;
        a
    }

    #[differentiable]
    pub fn cart2polar(a: f64, b: f64) -> (f64, f64) {
        let r = (a.powf(2.0) + b.powf(2.0)).sqrt();
        let theta = b.atan2(a);
        (r, theta)
    }

    #[differentiable(order = 2)]
    pub fn listcomp(a: &[f64]) -> f64 {
        a.iter().map(|i| i * 3.0).sum()
    }

    #[differentiable(order = 2)]
    pub fn while_big(mut a: f64) -> f64 {
        while a.abs() > 0.1 {
            a = a * 0.5;
        }
        a
    }

    #[differentiable(order = 2)]
    pub fn active_subscript(x: &[f64]) -> f64 {
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = x[i];
        }
        y.iter().sum()
    }

    #[differentiable(order = 2)]
    pub fn slicing(x: &[f64]) -> f64 {
        x[1..].iter().sum()
    }

    /// A three-step recurrence `h[t + 1] = inputs[t] · W + h[t]` over rows of a local nested array.
    #[differentiable(order = 2)]
    pub fn rnn(inputs: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
        let mut h = [[0.0; 3]; 4];
        for t in 0..3 {
            for j in 0..3 {
                let mut dot = 0.0;
                for k in 0..inputs[t].len() {
                    dot += inputs[t][k] * w[k][j];
                }
                h[t + 1][j] = dot + h[t][j];
            }
        }
        let mut s = 0.0;
        for t in 1..4 {
            for j in 0..3 {
                s += h[t][j];
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn augassign(a: f64) -> f64 {
        let mut x = a * a;
        x *= x;
        x
    }

    /// `sum(tanh(x W + h U + b))` with `W`, `U` as `[[f64; 3]; 2]`.
    #[differentiable(order = 2)]
    pub fn bilinear(
        x: [f64; 2],
        h: [f64; 2],
        u: [[f64; 3]; 2],
        w: [[f64; 3]; 2],
        b: [f64; 3],
    ) -> f64 {
        let mut y = [0.0; 3];
        for j in 0..3 {
            for i in 0..2 {
                y[j] += x[i] * w[i][j];
            }
        }
        for j in 0..3 {
            for i in 0..2 {
                y[j] = y[j] + h[i] * u[i][j];
            }
        }
        let mut s = 0.0;
        for j in 0..3 {
            y[j] = (y[j] + b[j]).tanh();
            s += y[j];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_pow(mut a: f64, b: f64) -> f64 {
        a = a.powf(b);
        a
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_pow_twice(mut a: f64) -> f64 {
        a = a * a;
        let y = a * a;
        y
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_chain_of_mults(a: f64) -> f64 {
        let b = a;
        let b = b * a;
        let c = b * b;
        let d = c * c;
        d
    }

    #[differentiable(order = 2)]
    pub fn gradgrad_chain_of_multcalls(a: f64) -> f64 {
        let b = mul(a, a);
        let c = mul(b, b);
        let d = mul(c, c);
        d
    }

    #[differentiable(order = 2)]
    pub fn useless_stack_ops(a: f64) -> f64 {
        let _b = a * a;
        a
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner {
        pub j: f64,
        pub k: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Outer {
        pub i: Inner,
    }

    #[differentiable(order = 2)]
    pub fn nested_dict(p: &Outer) -> f64 {
        p.i.j * p.i.k
    }

    #[differentiable(order = 2)]
    pub fn extended_slice(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            s += x[i];
        }
        s
    }

    pub fn plain_saxpy(a: f64, b: f64, c: f64) -> f64 {
        inner_fn_plain(a, b) + c
    }
}

use tangent_catalogue as tc;

#[test]
fn tangent_unary_catalogue() {
    let smooth = range(1, -2.0, 2.0);
    one(
        "identity",
        tc::identity,
        tc::identity_grad,
        tc::identity_jvp,
        tc::identity_grad_into,
    )
    .hessian(hess1(tc::identity_hessian, tc::identity_derivatives))
    .analytic(|_| vec![1.0])
    .run(POINTS, &smooth);
    one(
        "unary_sub",
        tc::unary_sub,
        tc::unary_sub_grad,
        tc::unary_sub_jvp,
        tc::unary_sub_grad_into,
    )
    .hessian(hess1(tc::unary_sub_hessian, tc::unary_sub_derivatives))
    .analytic(|_| vec![-1.0])
    .run(POINTS, &smooth);
    one(
        "tanh",
        tc::tanh,
        tc::tanh_grad,
        tc::tanh_jvp,
        tc::tanh_grad_into,
    )
    .hessian(hess1(tc::tanh_hessian, tc::tanh_derivatives))
    .analytic(|x| vec![1.0 - x[0].tanh().powi(2)])
    .run(POINTS, &smooth);
    one(
        "i_assign",
        tc::i_assign,
        tc::i_assign_grad,
        tc::i_assign_jvp,
        tc::i_assign_grad_into,
    )
    .hessian(hess1(tc::i_assign_hessian, tc::i_assign_derivatives))
    .run(POINTS, &smooth);
    one(
        "increment",
        tc::increment,
        tc::increment_grad,
        tc::increment_jvp,
        tc::increment_grad_into,
    )
    .hessian(hess1(tc::increment_hessian, tc::increment_derivatives))
    .run(POINTS, &smooth);
    one(
        "gradname_aliasing",
        tc::gradname_aliasing,
        tc::gradname_aliasing_grad,
        tc::gradname_aliasing_jvp,
        tc::gradname_aliasing_grad_into,
    )
    .hessian(hess1(
        tc::gradname_aliasing_hessian,
        tc::gradname_aliasing_derivatives,
    ))
    .analytic(|x| vec![3.0 * x[0] * x[0]])
    .run(POINTS, &smooth);
    one(
        "overwrite_if",
        tc::overwrite_if,
        tc::overwrite_if_grad,
        tc::overwrite_if_jvp,
        tc::overwrite_if_grad_into,
    )
    .hessian(hess1(
        tc::overwrite_if_hessian,
        tc::overwrite_if_derivatives,
    ))
    .analytic(|x| vec![if x[0] > 0.0 { 3.0 } else { 2.0 }])
    .run(POINTS, &smooth);
    one(
        "overwrite_arg",
        tc::overwrite_arg,
        tc::overwrite_arg_grad,
        tc::overwrite_arg_jvp,
        tc::overwrite_arg_grad_into,
    )
    .analytic(|_| vec![3.0])
    .run(POINTS, &smooth);
    one(
        "overwrite_non_arg",
        tc::overwrite_non_arg,
        tc::overwrite_non_arg_grad,
        tc::overwrite_non_arg_jvp,
        tc::overwrite_non_arg_grad_into,
    )
    .analytic(|_| vec![3.0])
    .run(POINTS, &smooth);
    one(
        "augassign",
        tc::augassign,
        tc::augassign_grad,
        tc::augassign_jvp,
        tc::augassign_grad_into,
    )
    .hessian(hess1(tc::augassign_hessian, tc::augassign_derivatives))
    .analytic(|x| vec![4.0 * x[0].powi(3)])
    .run(POINTS, &smooth);
    one(
        "useless_stack_ops",
        tc::useless_stack_ops,
        tc::useless_stack_ops_grad,
        tc::useless_stack_ops_jvp,
        tc::useless_stack_ops_grad_into,
    )
    .hessian(hess1(
        tc::useless_stack_ops_hessian,
        tc::useless_stack_ops_derivatives,
    ))
    .analytic(|_| vec![1.0])
    .run(POINTS, &smooth);
    one(
        "numpy_exp2",
        tc::numpy_exp2,
        tc::numpy_exp2_grad,
        tc::numpy_exp2_jvp,
        tc::numpy_exp2_grad_into,
    )
    .hessian(hess1(tc::numpy_exp2_hessian, tc::numpy_exp2_derivatives))
    .analytic(|x| vec![x[0].exp().exp() * x[0].exp()])
    .run(POINTS, &smooth);
    let positive = range(1, 0.1, 4.0);
    one(
        "numpy_sqrt",
        tc::numpy_sqrt,
        tc::numpy_sqrt_grad,
        tc::numpy_sqrt_jvp,
        tc::numpy_sqrt_grad_into,
    )
    .hessian(hess1(tc::numpy_sqrt_hessian, tc::numpy_sqrt_derivatives))
    .analytic(|x| vec![0.5 / x[0].sqrt()])
    .run(POINTS, &positive);
    one(
        "rsqrt",
        tc::rsqrt,
        tc::rsqrt_grad,
        tc::rsqrt_jvp,
        tc::rsqrt_grad_into,
    )
    .hessian(hess1(tc::rsqrt_hessian, tc::rsqrt_derivatives))
    .analytic(|x| vec![-0.5 * x[0].powf(-1.5)])
    .run(POINTS, &positive);
}

#[test]
fn tangent_binop_catalogue() {
    let xs = away_from(1, -3.0, 3.0, 100.0, 0.0);
    type Item = (
        &'static str,
        fn(f64) -> f64,
        fn(f64) -> (f64, f64),
        fn(f64, f64) -> (f64, f64),
        fn(f64, &mut f64) -> f64,
        fn(f64) -> f64,
    );
    let table: [Item; 12] = [
        (
            "binop_mul1",
            tc::binop_mul1,
            tc::binop_mul1_grad,
            tc::binop_mul1_jvp,
            tc::binop_mul1_grad_into,
            |_| 3.0,
        ),
        (
            "binop_mul2",
            tc::binop_mul2,
            tc::binop_mul2_grad,
            tc::binop_mul2_jvp,
            tc::binop_mul2_grad_into,
            |_| 3.0,
        ),
        (
            "binop_mul3",
            tc::binop_mul3,
            tc::binop_mul3_grad,
            tc::binop_mul3_jvp,
            tc::binop_mul3_grad_into,
            |a| 2.0 * a,
        ),
        (
            "binop_div1",
            tc::binop_div1,
            tc::binop_div1_grad,
            tc::binop_div1_jvp,
            tc::binop_div1_grad_into,
            |_| 1.0 / 3.0,
        ),
        (
            "binop_div2",
            tc::binop_div2,
            tc::binop_div2_grad,
            tc::binop_div2_jvp,
            tc::binop_div2_grad_into,
            |a| -3.0 / (a * a),
        ),
        (
            "binop_div3",
            tc::binop_div3,
            tc::binop_div3_grad,
            tc::binop_div3_jvp,
            tc::binop_div3_grad_into,
            |_| 0.0,
        ),
        (
            "binop_sub1",
            tc::binop_sub1,
            tc::binop_sub1_grad,
            tc::binop_sub1_jvp,
            tc::binop_sub1_grad_into,
            |_| 1.0,
        ),
        (
            "binop_sub2",
            tc::binop_sub2,
            tc::binop_sub2_grad,
            tc::binop_sub2_jvp,
            tc::binop_sub2_grad_into,
            |_| -1.0,
        ),
        (
            "binop_sub3",
            tc::binop_sub3,
            tc::binop_sub3_grad,
            tc::binop_sub3_jvp,
            tc::binop_sub3_grad_into,
            |_| 0.0,
        ),
        (
            "binop_add1",
            tc::binop_add1,
            tc::binop_add1_grad,
            tc::binop_add1_jvp,
            tc::binop_add1_grad_into,
            |_| 1.0,
        ),
        (
            "binop_add2",
            tc::binop_add2,
            tc::binop_add2_grad,
            tc::binop_add2_jvp,
            tc::binop_add2_grad_into,
            |_| 1.0,
        ),
        (
            "binop_add3",
            tc::binop_add3,
            tc::binop_add3_grad,
            tc::binop_add3_jvp,
            tc::binop_add3_grad_into,
            |_| 2.0,
        ),
    ];
    for (name, f, g, j, gi, d) in table {
        let sample = |r: &mut Lcg| loop {
            let x = xs(r);
            if x[0].abs() > 0.2 {
                break x;
            }
        };
        one(name, f, g, j, gi)
            .analytic(move |x| vec![d(x[0])])
            .run(POINTS, sample);
    }
    for (name, h) in [
        (
            "binop_mul3",
            hess1(tc::binop_mul3_hessian, tc::binop_mul3_derivatives),
        ),
        (
            "binop_div2",
            hess1(tc::binop_div2_hessian, tc::binop_div2_derivatives),
        ),
        (
            "binop_div3",
            hess1(tc::binop_div3_hessian, tc::binop_div3_derivatives),
        ),
        (
            "binop_sub3",
            hess1(tc::binop_sub3_hessian, tc::binop_sub3_derivatives),
        ),
        (
            "binop_add3",
            hess1(tc::binop_add3_hessian, tc::binop_add3_derivatives),
        ),
    ] {
        let (v, g, hh) = h(&[1.7]);
        let expected = match name {
            "binop_mul3" => (1.7 * 1.7, 3.4, 2.0),
            "binop_div2" => (3.0 / 1.7, -3.0 / (1.7 * 1.7), 6.0 / (1.7 * 1.7 * 1.7)),
            "binop_div3" => (1.0, 0.0, 0.0),
            "binop_sub3" => (0.0, 0.0, 0.0),
            _ => (3.4, 2.0, 0.0),
        };
        assert_near(v, expected.0, 1e-12, 0.0, name);
        assert_near(g[0], expected.1, 1e-12, 0.0, name);
        assert_near(hh[0][0], expected.2, 1e-12, 0.0, name);
    }
}

#[test]
fn tangent_branches() {
    // Away from the branch points 0 and 10/3 (devilish) and the kinks of multiarg_if.
    let xs = away_from(1, -5.0, 5.0, 10.0 / 3.0, 0.0);
    one(
        "nested_if",
        tc::nested_if,
        tc::nested_if_grad,
        tc::nested_if_jvp,
        tc::nested_if_grad_into,
    )
    .hessian(hess1(tc::nested_if_hessian, tc::nested_if_derivatives))
    .analytic(|x| {
        let a = x[0];
        vec![if a > 0.0 && a < 10.0 {
            2.0 * a
        } else if a > 0.0 {
            1.0
        } else {
            3.0
        }]
    })
    .run(POINTS, &xs);
    one(
        "multiarg_if",
        tc::multiarg_if,
        tc::multiarg_if_grad,
        tc::multiarg_if_jvp,
        tc::multiarg_if_grad_into,
    )
    .hessian(hess1(tc::multiarg_if_hessian, tc::multiarg_if_derivatives))
    .run(POINTS, away_from(1, -5.0, 5.0, 0.5, 0.25));
    one(
        "serial_if",
        tc::serial_if,
        tc::serial_if_grad,
        tc::serial_if_jvp,
        tc::serial_if_grad_into,
    )
    .hessian(hess1(tc::serial_if_hessian, tc::serial_if_derivatives))
    .analytic(|x| vec![if x[0] > 0.0 { 4.0 * x[0] } else { 6.0 }])
    .run(POINTS, &xs);
    one(
        "devilish_nested_if",
        tc::devilish_nested_if,
        tc::devilish_nested_if_grad,
        tc::devilish_nested_if_jvp,
        tc::devilish_nested_if_grad_into,
    )
    .hessian(hess1(
        tc::devilish_nested_if_hessian,
        tc::devilish_nested_if_derivatives,
    ))
    .analytic(|x| {
        let a = x[0];
        vec![if a <= 0.0 {
            1.0
        } else if 3.0 * a < 10.0 {
            18.0 * a
        } else {
            6.0
        }]
    })
    .run(POINTS, &xs);
    one(
        "overwrite_ifelse",
        tc::overwrite_ifelse,
        tc::overwrite_ifelse_grad,
        tc::overwrite_ifelse_jvp,
        tc::overwrite_ifelse_grad_into,
    )
    .hessian(hess1(
        tc::overwrite_ifelse_hessian,
        tc::overwrite_ifelse_derivatives,
    ))
    .analytic(|x| vec![if x[0] > 0.0 { 3.0 } else { 2.0 }])
    .run(POINTS, &xs);
    assert_eq!(tc::overwrite_ifelse_grad(0.0), (0.0, 1.0));
    let pairs = range(2, -3.0, 3.0);
    let apart = |r: &mut Lcg| loop {
        let x = pairs(r);
        if (x[0] - x[1]).abs() > 0.05 {
            break x;
        }
    };
    two(
        "multivar_if",
        tc::multivar_if,
        tc::multivar_if_grad,
        tc::multivar_if_jvp,
        tc::multivar_if_grad_into,
    )
    .hessian(hess2(tc::multivar_if_hessian))
    .analytic(|x| {
        if x[0] > x[1] {
            vec![2.0 * x[0], 0.0]
        } else {
            vec![x[1], x[0]]
        }
    })
    .run(POINTS, apart);
    two(
        "if_mul_with_call",
        tc::if_mul_with_call,
        tc::if_mul_with_call_grad,
        tc::if_mul_with_call_jvp,
        tc::if_mul_with_call_grad_into,
    )
    .hessian(hess2(tc::if_mul_with_call_hessian))
    .analytic(|x| vec![x[1], x[0]])
    .run(POINTS, apart);
    two(
        "maximum",
        tc::maximum,
        tc::maximum_grad,
        tc::maximum_jvp,
        tc::maximum_grad_into,
    )
    .hessian(hess2(tc::maximum_hessian))
    .analytic(|x| {
        if x[0] > x[1] {
            vec![1.0, 0.0]
        } else {
            vec![0.0, 1.0]
        }
    })
    .run(POINTS, apart);
    // JAX: a tie of max gives half to each side.
    assert_eq!(tc::maximum_grad(1.5, 1.5), (1.5, (0.5, 0.5)));
}

#[test]
fn tangent_loops() {
    let small = range(1, 0.5, 1.3);
    let pow8 = |a: f64| a.powi(8);
    one(
        "iterpower_static",
        tc::iterpower_static,
        tc::iterpower_static_grad,
        tc::iterpower_static_jvp,
        tc::iterpower_static_grad_into,
    )
    .hessian(hess1(
        tc::iterpower_static_hessian,
        tc::iterpower_static_derivatives,
    ))
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    assert_near(
        tc::iterpower_static(1.1),
        pow8(1.1),
        1e-14,
        0.0,
        "iterpower_static",
    );
    one(
        "iterpower",
        |a| tc::iterpower(a, 3),
        |a| tc::iterpower_grad(a, 3),
        |a, t| tc::iterpower_jvp(a, 3, t),
        |a, g| tc::iterpower_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    for n in 0..4 {
        let d = tc::iterpower_derivatives(1.2, n);
        let p = 1 << n;
        assert_near(d[0], 1.2f64.powi(p), 1e-13, 0.0, "iterpower_derivatives[0]");
        assert_near(
            d[1],
            p as f64 * 1.2f64.powi(p - 1),
            1e-13,
            0.0,
            "iterpower_derivatives[1]",
        );
        let second = if p > 1 {
            (p * (p - 1)) as f64 * 1.2f64.powi(p - 2)
        } else {
            0.0
        };
        assert_near(d[2], second, 1e-13, 0.0, "iterpower_derivatives[2]");
    }
    one(
        "serial_for",
        |a| tc::serial_for(a, 2),
        |a| tc::serial_for_grad(a, 2),
        |a, t| tc::serial_for_jvp(a, 2, t),
        |a, g| tc::serial_for_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_for_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .analytic(|x| vec![2.0 * 27.0 * 4.0 * x[0].powi(3)])
    .run(POINTS, range(1, -1.3, 1.3));
    one(
        "serial_ifthenfor",
        |a| tc::serial_ifthenfor(a, 2),
        |a| tc::serial_ifthenfor_grad(a, 2),
        |a, t| tc::serial_ifthenfor_jvp(a, 2, t),
        |a, g| tc::serial_ifthenfor_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_ifthenfor_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .run(POINTS, away_from(1, -1.3, 1.3, 10.0, 0.0));
    one(
        "serial_forthenif",
        |a| tc::serial_forthenif(a, 2),
        |a| tc::serial_forthenif_grad(a, 2),
        |a, t| tc::serial_forthenif_jvp(a, 2, t),
        |a, g| tc::serial_forthenif_grad_into(a, 2, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::serial_forthenif_hessian(x[0], 2);
        (v, vec![g], h)
    })
    .analytic(|x| vec![32.0 * x[0].powi(7)])
    .run(POINTS, away_from(1, -1.3, 1.3, 10.0, 0.0));
    let cube = range(1, -1.5, 1.5);
    for (name, f, g, j, gi, h) in [
        (
            "third_pow",
            tc::third_pow as fn(f64) -> f64,
            tc::third_pow_grad as fn(f64) -> (f64, f64),
            tc::third_pow_jvp as fn(f64, f64) -> (f64, f64),
            tc::third_pow_grad_into as fn(f64, &mut f64) -> f64,
            hess1(tc::third_pow_hessian, tc::third_pow_derivatives),
        ),
        (
            "direct_third_pow",
            tc::direct_third_pow,
            tc::direct_third_pow_grad,
            tc::direct_third_pow_jvp,
            tc::direct_third_pow_grad_into,
            hess1(
                tc::direct_third_pow_hessian,
                tc::direct_third_pow_derivatives,
            ),
        ),
        (
            "iter_third_pow1",
            tc::iter_third_pow1,
            tc::iter_third_pow1_grad,
            tc::iter_third_pow1_jvp,
            tc::iter_third_pow1_grad_into,
            hess1(tc::iter_third_pow1_hessian, tc::iter_third_pow1_derivatives),
        ),
        (
            "iter_third_pow2",
            tc::iter_third_pow2,
            tc::iter_third_pow2_grad,
            tc::iter_third_pow2_jvp,
            tc::iter_third_pow2_grad_into,
            hess1(tc::iter_third_pow2_hessian, tc::iter_third_pow2_derivatives),
        ),
    ] {
        one(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![3.0 * x[0] * x[0]])
            .run(POINTS, &cube);
    }
    one(
        "cond_iterpower1",
        tc::cond_iterpower1,
        tc::cond_iterpower1_grad,
        tc::cond_iterpower1_jvp,
        tc::cond_iterpower1_grad_into,
    )
    .hessian(hess1(
        tc::cond_iterpower1_hessian,
        tc::cond_iterpower1_derivatives,
    ))
    .run(POINTS, away_from(1, 0.5, 3.0, 100.0, 20.0f64.sqrt().sqrt()));
    one(
        "cond_iterpower2",
        tc::cond_iterpower2,
        tc::cond_iterpower2_grad,
        tc::cond_iterpower2_jvp,
        tc::cond_iterpower2_grad_into,
    )
    .hessian(hess1(
        tc::cond_iterpower2_hessian,
        tc::cond_iterpower2_derivatives,
    ))
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &small);
    one(
        "superfor_iterpower",
        tc::superfor_iterpower,
        tc::superfor_iterpower_grad,
        tc::superfor_iterpower_jvp,
        tc::superfor_iterpower_grad_into,
    )
    .hessian(hess1(
        tc::superfor_iterpower_hessian,
        tc::superfor_iterpower_derivatives,
    ))
    .analytic(|x| vec![64.0 * x[0].powi(63)])
    .run(POINTS, range(1, 0.9, 1.05));
    one(
        "super_iterpower",
        tc::super_iterpower,
        tc::super_iterpower_grad,
        tc::super_iterpower_jvp,
        tc::super_iterpower_grad_into,
    )
    .hessian(hess1(
        tc::super_iterpower_hessian,
        tc::super_iterpower_derivatives,
    ))
    .analytic(|x| vec![27.0 * x[0].powi(26)])
    .run(POINTS, range(1, 0.8, 1.1));
    one(
        "while_big",
        tc::while_big,
        tc::while_big_grad,
        tc::while_big_jvp,
        tc::while_big_grad_into,
    )
    .hessian(hess1(tc::while_big_hessian, tc::while_big_derivatives))
    .run(POINTS, away_from(1, -3.0, 3.0, 0.1, 0.0));
    assert_eq!(tc::while_big_grad(0.8), (0.1, 0.125));
    let cases = range(1, 0.5, 1.2);
    one(
        "iterpower_with_call",
        |a| tc::iterpower_with_call(a, 3),
        |a| tc::iterpower_with_call_grad(a, 3),
        |a, t| tc::iterpower_with_call_jvp(a, 3, t),
        |a, g| tc::iterpower_with_call_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_with_call_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &cases);
    one(
        "iterpower_with_nested_def",
        |a| tc::iterpower_with_nested_def(a, 3),
        |a| tc::iterpower_with_nested_def_grad(a, 3),
        |a, t| tc::iterpower_with_nested_def_jvp(a, 3, t),
        |a, g| tc::iterpower_with_nested_def_grad_into(a, 3, g),
    )
    .hessian(|x| {
        let (v, g, h) = tc::iterpower_with_nested_def_hessian(x[0], 3);
        (v, vec![g], h)
    })
    .analytic(|x| vec![8.0 * x[0].powi(7)])
    .run(POINTS, &cases);
    one(
        "gradgrad_pow_twice",
        tc::gradgrad_pow_twice,
        tc::gradgrad_pow_twice_grad,
        tc::gradgrad_pow_twice_jvp,
        tc::gradgrad_pow_twice_grad_into,
    )
    .hessian(hess1(
        tc::gradgrad_pow_twice_hessian,
        tc::gradgrad_pow_twice_derivatives,
    ))
    .analytic(|x| vec![4.0 * x[0].powi(3)])
    .run(POINTS, range(1, -2.0, 2.0));
    for (name, f, g, j, gi, h) in [
        (
            "gradgrad_chain_of_mults",
            tc::gradgrad_chain_of_mults as fn(f64) -> f64,
            tc::gradgrad_chain_of_mults_grad as fn(f64) -> (f64, f64),
            tc::gradgrad_chain_of_mults_jvp as fn(f64, f64) -> (f64, f64),
            tc::gradgrad_chain_of_mults_grad_into as fn(f64, &mut f64) -> f64,
            hess1(
                tc::gradgrad_chain_of_mults_hessian,
                tc::gradgrad_chain_of_mults_derivatives,
            ),
        ),
        (
            "gradgrad_chain_of_multcalls",
            tc::gradgrad_chain_of_multcalls,
            tc::gradgrad_chain_of_multcalls_grad,
            tc::gradgrad_chain_of_multcalls_jvp,
            tc::gradgrad_chain_of_multcalls_grad_into,
            hess1(
                tc::gradgrad_chain_of_multcalls_hessian,
                tc::gradgrad_chain_of_multcalls_derivatives,
            ),
        ),
    ] {
        one(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![8.0 * x[0].powi(7)])
            .run(POINTS, range(1, -1.2, 1.2));
    }
}

#[test]
fn tangent_several_scalars() {
    let xs = range(3, -2.0, 2.0);
    for (name, f, g, j, gi) in [
        (
            "saxpy",
            tc::saxpy as fn(f64, f64, f64) -> f64,
            tc::saxpy_grad as fn(f64, f64, f64) -> (f64, Three),
            tc::saxpy_jvp as fn(f64, f64, f64, Three) -> (f64, f64),
            tc::saxpy_grad_into as fn(f64, f64, f64, (&mut f64, &mut f64, &mut f64)) -> f64,
        ),
        (
            "saxpy_call",
            tc::saxpy_call,
            tc::saxpy_call_grad,
            tc::saxpy_call_jvp,
            tc::saxpy_call_grad_into,
        ),
        (
            "saxpy_anf",
            tc::saxpy_anf,
            tc::saxpy_anf_grad,
            tc::saxpy_anf_jvp,
            tc::saxpy_anf_grad_into,
        ),
        (
            "saxpy_overwrite",
            tc::saxpy_overwrite,
            tc::saxpy_overwrite_grad,
            tc::saxpy_overwrite_jvp,
            tc::saxpy_overwrite_grad_into,
        ),
    ] {
        let p = three(name, f, g, j, gi).analytic(|x| vec![x[1], x[0], 1.0]);
        let p = match name {
            "saxpy" => p.hessian(hess3(tc::saxpy_hessian)),
            "saxpy_call" => p.hessian(hess3(tc::saxpy_call_hessian)),
            _ => p,
        };
        p.run(POINTS, &xs);
        assert_near(
            f(1.0, 2.0, 3.0),
            tc::plain_saxpy(1.0, 2.0, 3.0),
            0.0,
            0.0,
            name,
        );
    }
    let pairs = range(2, -2.0, 2.0);
    for (name, f, g, j, gi, h) in [
        (
            "mul",
            tc::mul as fn(f64, f64) -> f64,
            tc::mul_grad as fn(f64, f64) -> (f64, Two),
            tc::mul_jvp as fn(f64, f64, Two) -> (f64, f64),
            tc::mul_grad_into as fn(f64, f64, (&mut f64, &mut f64)) -> f64,
            hess2(tc::mul_hessian),
        ),
        (
            "inner_fn",
            tc::inner_fn,
            tc::inner_fn_grad,
            tc::inner_fn_jvp,
            tc::inner_fn_grad_into,
            hess2(tc::inner_fn_hessian),
        ),
        (
            "mul_with_call",
            tc::mul_with_call,
            tc::mul_with_call_grad,
            tc::mul_with_call_jvp,
            tc::mul_with_call_grad_into,
            hess2(tc::mul_with_call_hessian),
        ),
        (
            "nested_call",
            tc::nested_call,
            tc::nested_call_grad,
            tc::nested_call_jvp,
            tc::nested_call_grad_into,
            hess2(tc::nested_call_hessian),
        ),
    ] {
        two(name, f, g, j, gi)
            .hessian(h)
            .analytic(|x| vec![x[1], x[0]])
            .run(POINTS, &pairs);
    }
    two("add", tc::add, tc::add_grad, tc::add_jvp, tc::add_grad_into)
        .hessian(hess2(tc::add_hessian))
        .analytic(|_| vec![1.0, 1.0])
        .run(POINTS, &pairs);
    two(
        "squared_difference",
        tc::squared_difference,
        tc::squared_difference_grad,
        tc::squared_difference_jvp,
        tc::squared_difference_grad_into,
    )
    .hessian(hess2(tc::squared_difference_hessian))
    .analytic(|x| vec![2.0 * (x[0] - x[1]), -2.0 * (x[0] - x[1])])
    .run(POINTS, &pairs);
    two(
        "gradgrad_pow",
        tc::gradgrad_pow,
        tc::gradgrad_pow_grad,
        tc::gradgrad_pow_jvp,
        tc::gradgrad_pow_grad_into,
    )
    .hessian(hess2(tc::gradgrad_pow_hessian))
    .analytic(|x| vec![x[1] * x[0].powf(x[1] - 1.0), x[0].powf(x[1]) * x[0].ln()])
    .run(POINTS, |r| vec![r.uniform(0.2, 3.0), r.uniform(-2.0, 2.0)]);
    // A tuple parameter, and an array built of three active scalars indexed by an integer.
    Probe::new("unpacking_args_saxpy", |x| {
        tc::unpacking_args_saxpy((x[0], x[1], x[2]))
    })
    .grad(|x| {
        let (v, g) = tc::unpacking_args_saxpy_grad((x[0], x[1], x[2]));
        (v, vec![g.0, g.1, g.2])
    })
    .jvp(|x, t| tc::unpacking_args_saxpy_jvp((x[0], x[1], x[2]), (t[0], t[1], t[2])))
    .grad_into(|x| {
        let mut g = (GARBAGE, GARBAGE, GARBAGE);
        let v = tc::unpacking_args_saxpy_grad_into((x[0], x[1], x[2]), &mut g);
        (v, vec![g.0, g.1, g.2])
    })
    .hessian(|x| {
        let (v, g, h) = tc::unpacking_args_saxpy_hessian((x[0], x[1], x[2]));
        (v, vec![g.0, g.1, g.2], h)
    })
    .analytic(|x| vec![x[1], x[0], 1.0])
    .run(POINTS, &xs);
    Probe::new("passthru_unpack", |x| {
        tc::passthru_unpack((x[0], x[1], x[2]))
    })
    .grad(|x| {
        let (v, g) = tc::passthru_unpack_grad((x[0], x[1], x[2]));
        (v, vec![g.0, g.1, g.2])
    })
    .hessian(|x| {
        let (v, g, h) = tc::passthru_unpack_hessian((x[0], x[1], x[2]));
        (v, vec![g.0, g.1, g.2], h)
    })
    .analytic(|_| vec![1.0, 0.0, 0.0])
    .run(POINTS, &xs);
    for i in 0..3 {
        let (v, g) = tc::passthru_pack_grad(1.0, 2.0, 3.0, i);
        assert_eq!(v, [1.0, 2.0, 3.0][i]);
        assert_eq!(tc::passthru_pack(1.0, 2.0, 3.0, i), v);
        let mut expected = (0.0, 0.0, 0.0);
        match i {
            0 => expected.0 = 1.0,
            1 => expected.1 = 1.0,
            _ => expected.2 = 1.0,
        }
        assert_eq!(g, expected, "passthru_pack, i = {i}");
        let (_, gh, h) = tc::passthru_pack_hessian(1.0, 2.0, 3.0, i);
        assert_eq!(gh, expected);
        assert_eq!(h, vec![vec![0.0; 3]; 3]);
    }
    one(
        "list_and_subscript",
        tc::list_and_subscript,
        tc::list_and_subscript_grad,
        tc::list_and_subscript_jvp,
        tc::list_and_subscript_grad_into,
    )
    .hessian(hess1(
        tc::list_and_subscript_hessian,
        tc::list_and_subscript_derivatives,
    ))
    .analytic(|_| vec![1.0])
    .run(POINTS, range(1, -2.0, 2.0));
    one(
        "anf_list",
        tc::anf_list,
        tc::anf_list_grad,
        tc::anf_list_jvp,
        tc::anf_list_grad_into,
    )
    .hessian(hess1(tc::anf_list_hessian, tc::anf_list_derivatives))
    .analytic(|x| vec![2.0 * x[0]])
    .run(POINTS, range(1, -2.0, 2.0));
}

#[test]
fn tangent_tuple_outputs() {
    let mut rng = Lcg::new(7);
    for _ in 0..POINTS {
        let (a, b) = (rng.uniform(0.2, 2.0), rng.uniform(-2.0, 2.0));
        let (ca, cb) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        // cotangent · (r, theta) as a scalar function of (a, b), by central differences.
        let scalar = |x: &[f64]| {
            let (r, t) = tc::cart2polar(x[0], x[1]);
            ca * r + cb * t
        };
        let fd = fd_gradient(&scalar, &[a, b]);
        let (value, g) = tc::cart2polar_vjp(a, b, (ca, cb));
        assert_eq!(value, tc::cart2polar(a, b));
        assert_vec_near(&[g.0, g.1], &fd, 1e-6, "cart2polar_vjp");
        let r = a.hypot(b);
        let analytic = [ca * a / r - cb * b / (r * r), ca * b / r + cb * a / (r * r)];
        assert_vec_near(
            &[g.0, g.1],
            &analytic,
            1e-9,
            "cart2polar_vjp against the formula",
        );
        let (ta, tb) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let (_, (dr, dt)) = tc::cart2polar_jvp(a, b, (ta, tb));
        assert_near(dr, (a * ta + b * tb) / r, 1e-9, 1.0, "cart2polar_jvp r");
        assert_near(
            dt,
            (a * tb - b * ta) / (r * r),
            1e-9,
            1.0,
            "cart2polar_jvp theta",
        );

        assert_eq!(tc::fn_multiple_return(a), (2.0 * a, a));
        let (_, g) = tc::fn_multiple_return_vjp(a, (ca, cb));
        assert_near(g, 2.0 * ca + cb, 1e-14, 0.0, "fn_multiple_return_vjp");
        let (_, t) = tc::fn_multiple_return_jvp(a, ta);
        assert_eq!(t, (2.0 * ta, ta));
    }
}

#[test]
fn tangent_slices() {
    let v3 = range(3, -2.0, 2.0);
    let v5 = range(5, -2.0, 2.0);
    slice(
        "sum_all",
        tc::sum_all,
        tc::sum_all_grad,
        tc::sum_all_jvp,
        tc::sum_all_grad_into,
    )
    .hessian(hess_slice(tc::sum_all_hessian))
    .analytic(|x| vec![1.0; x.len()])
    .run(POINTS, &v5);
    slice(
        "overwrite_call",
        tc::overwrite_call,
        tc::overwrite_call_grad,
        tc::overwrite_call_jvp,
        tc::overwrite_call_grad_into,
    )
    .hessian(hess_slice(tc::overwrite_call_hessian))
    .analytic(|x| vec![2.0 * x.iter().sum::<f64>(); x.len()])
    .run(POINTS, &v5);
    slice(
        "deep_anf_list",
        tc::deep_anf_list,
        tc::deep_anf_list_grad,
        tc::deep_anf_list_jvp,
        tc::deep_anf_list_grad_into,
    )
    .hessian(hess_slice(tc::deep_anf_list_hessian))
    .analytic(|x| vec![x[1] * x[2], x[0] * x[2], x[0] * x[1]])
    .run(POINTS, &v3);
    slice(
        "subscript1",
        tc::subscript1,
        tc::subscript1_grad,
        tc::subscript1_jvp,
        tc::subscript1_grad_into,
    )
    .hessian(hess_slice(tc::subscript1_hessian))
    .analytic(|x| vec![x[1], x[0], 0.0])
    .run(POINTS, &v3);
    slice(
        "numpy_mean",
        tc::numpy_mean,
        tc::numpy_mean_grad,
        tc::numpy_mean_jvp,
        tc::numpy_mean_grad_into,
    )
    .hessian(hess_slice(tc::numpy_mean_hessian))
    .analytic(|x| vec![1.0 / x.len() as f64; x.len()])
    .run(POINTS, &v5);
    slice(
        "listcomp",
        tc::listcomp,
        tc::listcomp_grad,
        tc::listcomp_jvp,
        tc::listcomp_grad_into,
    )
    .hessian(hess_slice(tc::listcomp_hessian))
    .analytic(|x| vec![3.0; x.len()])
    .run(POINTS, &v5);
    slice(
        "active_subscript",
        tc::active_subscript,
        tc::active_subscript_grad,
        tc::active_subscript_jvp,
        tc::active_subscript_grad_into,
    )
    .hessian(hess_slice(tc::active_subscript_hessian))
    .analytic(|x| vec![1.0; x.len()])
    .run(POINTS, &v5);
    slice(
        "slicing",
        tc::slicing,
        tc::slicing_grad,
        tc::slicing_jvp,
        tc::slicing_grad_into,
    )
    .hessian(hess_slice(tc::slicing_hessian))
    .analytic(|x| {
        let mut g = vec![1.0; x.len()];
        g[0] = 0.0;
        g
    })
    .run(POINTS, &v5);
    slice(
        "extended_slice",
        tc::extended_slice,
        tc::extended_slice_grad,
        tc::extended_slice_jvp,
        tc::extended_slice_grad_into,
    )
    .hessian(hess_slice(tc::extended_slice_hessian))
    .analytic(|x| {
        (0..x.len())
            .map(|i| if i % 2 == 0 { 1.0 } else { 0.0 })
            .collect()
    })
    .run(POINTS, &v5);
    // Arrays taken by value and written.
    let arr = |x: &[f64]| [x[0], x[1], x[2]];
    Probe::new("subscript2", move |x| tc::subscript2(arr(x)))
        .grad(move |x| {
            let (v, g) = tc::subscript2_grad(arr(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| tc::subscript2_jvp(arr(x), arr(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 3];
            let v = tc::subscript2_grad_into(arr(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = tc::subscript2_hessian(arr(x));
            (v, g.to_vec(), h)
        })
        .analytic(|x| vec![x[1], x[0] + 1.0, 1.0])
        .run(POINTS, &v3);
    Probe::new("subscript3", move |x| tc::subscript3(arr(x)))
        .grad(move |x| {
            let (v, g) = tc::subscript3_grad(arr(x));
            (v, g.to_vec())
        })
        .jvp(move |x, t| tc::subscript3_jvp(arr(x), arr(t)))
        .grad_into(move |x| {
            let mut g = [GARBAGE; 3];
            let v = tc::subscript3_grad_into(arr(x), &mut g);
            (v, g.to_vec())
        })
        .hessian(move |x| {
            let (v, g, h) = tc::subscript3_hessian(arr(x));
            (v, g.to_vec(), h)
        })
        .run(POINTS, range(3, 0.2, 2.0));
    // logistic regression: wrt(w, b), with the input and the label constants.
    let input = [0.3, -1.2, 0.8];
    for label in [0.0, 1.0] {
        Probe::new("logistic_regression", move |x| {
            tc::logistic_regression(&input, label, &x[..3], x[3])
        })
        .grad(move |x| {
            let (v, (gw, gb)) = tc::logistic_regression_grad(&input, label, &x[..3], x[3]);
            let mut g = gw;
            g.push(gb);
            (v, g)
        })
        .jvp(move |x, t| {
            tc::logistic_regression_jvp(&input, label, &x[..3], x[3], (t[..3].to_vec(), t[3]))
        })
        .grad_into(move |x| {
            let mut gw = [GARBAGE; 3];
            let mut gb = GARBAGE;
            let v =
                tc::logistic_regression_grad_into(&input, label, &x[..3], x[3], (&mut gw, &mut gb));
            (v, vec![gw[0], gw[1], gw[2], gb])
        })
        .hessian(move |x| {
            let (v, (gw, gb), h) = tc::logistic_regression_hessian(&input, label, &x[..3], x[3]);
            let mut g = gw;
            g.push(gb);
            (v, g, h)
        })
        .analytic(move |x| {
            let h1: f64 = input.iter().zip(&x[..3]).map(|(i, w)| i * w).sum::<f64>() + x[3];
            let t = h1.tanh();
            let p = 0.5 * (t + 1.0);
            let dp = 0.5 * (1.0 - t * t);
            let dl = if label == 1.0 {
                -dp / p
            } else {
                dp / (1.0 - p)
            };
            vec![dl * input[0], dl * input[1], dl * input[2], dl]
        })
        .run(POINTS, range(4, -1.0, 1.0));
    }
    // The nested struct (tangent's nested dict).
    let outer = |x: &[f64]| tc::Outer {
        i: tc::Inner { j: x[0], k: x[1] },
    };
    Probe::new("nested_dict", move |x| tc::nested_dict(&outer(x)))
        .grad(move |x| {
            let (v, g) = tc::nested_dict_grad(&outer(x));
            (v, vec![g.i.j, g.i.k])
        })
        .jvp(move |x, t| tc::nested_dict_jvp(&outer(x), outer(t)))
        .hessian(move |x| {
            let (v, g, h) = tc::nested_dict_hessian(&outer(x));
            (v, g.to_flat(), h)
        })
        .analytic(|x| vec![x[1], x[0]])
        .run(POINTS, range(2, -2.0, 2.0));
}

fn rows(x: &[f64], n: usize, m: usize) -> Vec<Vec<f64>> {
    (0..n).map(|i| x[i * m..(i + 1) * m].to_vec()).collect()
}

fn flatten(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

#[test]
fn tangent_matrices() {
    // rnn: inputs 3x2, W 2x3, flattened (inputs, W).
    let split = |x: &[f64]| (rows(&x[..6], 3, 2), rows(&x[6..], 2, 3));
    Probe::new("rnn", move |x| {
        let (i, w) = split(x);
        tc::rnn(&i, &w)
    })
    .grad(move |x| {
        let (i, w) = split(x);
        let (v, (gi, gw)) = tc::rnn_grad(&i, &w);
        let mut g = flatten(&gi);
        g.extend(flatten(&gw));
        (v, g)
    })
    .jvp(move |x, t| {
        let (i, w) = split(x);
        let (ti, tw) = split(t);
        tc::rnn_jvp(&i, &w, (ti, tw))
    })
    .hessian(move |x| {
        let (i, w) = split(x);
        let (v, (gi, gw), h) = tc::rnn_hessian(&i, &w);
        let mut g = flatten(&gi);
        g.extend(flatten(&gw));
        (v, g, h)
    })
    .run(POINTS, range(12, -1.0, 1.0));
    // bilinear: x[2], h[2], U[2][3], W[2][3], b[3]: 2 + 2 + 6 + 6 + 3 = 19 inputs.
    type Args = ([f64; 2], [f64; 2], [[f64; 3]; 2], [[f64; 3]; 2], [f64; 3]);
    fn args(x: &[f64]) -> Args {
        let m = |o: usize| [[x[o], x[o + 1], x[o + 2]], [x[o + 3], x[o + 4], x[o + 5]]];
        (
            [x[0], x[1]],
            [x[2], x[3]],
            m(4),
            m(10),
            [x[16], x[17], x[18]],
        )
    }
    fn flat(g: Args) -> Vec<f64> {
        let mut out = g.0.to_vec();
        out.extend(g.1);
        out.extend(g.2.iter().flatten());
        out.extend(g.3.iter().flatten());
        out.extend(g.4);
        out
    }
    Probe::new("bilinear", |x| {
        let (a, b, c, d, e) = args(x);
        tc::bilinear(a, b, c, d, e)
    })
    .grad(|x| {
        let (a, b, c, d, e) = args(x);
        let (v, g) = tc::bilinear_grad(a, b, c, d, e);
        (v, flat(g))
    })
    .jvp(|x, t| {
        let (a, b, c, d, e) = args(x);
        tc::bilinear_jvp(a, b, c, d, e, args(t))
    })
    .grad_into(|x| {
        let (a, b, c, d, e) = args(x);
        let mut g: Args = (
            [GARBAGE; 2],
            [GARBAGE; 2],
            [[GARBAGE; 3]; 2],
            [[GARBAGE; 3]; 2],
            [GARBAGE; 3],
        );
        let v = tc::bilinear_grad_into(
            a,
            b,
            c,
            d,
            e,
            (&mut g.0, &mut g.1, &mut g.2, &mut g.3, &mut g.4),
        );
        (v, flat(g))
    })
    .hessian(|x| {
        let (a, b, c, d, e) = args(x);
        let (v, g, h) = tc::bilinear_hessian(a, b, c, d, e);
        (v, flat(g), h)
    })
    .run(20, range(19, -1.0, 1.0));
}

// ---------------------------------------------------------------------------------------------------
// Numeric Rust idioms.
// ---------------------------------------------------------------------------------------------------

/// Helpers in one module, called from another by path and by an imported name.
pub mod geometry {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn dist(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
        (ax - bx).hypot(ay - by)
    }

    /// A helper returning a tuple.
    #[differentiable]
    pub fn sincos(t: f64) -> (f64, f64) {
        (t.sin(), t.cos())
    }

    /// Polar to Cartesian and back, as a tuple.
    #[differentiable]
    pub fn rotate(x: f64, y: f64, angle: f64) -> (f64, f64) {
        let (s, c) = sincos(angle);
        (c * x - s * y, s * x + c * y)
    }
}

pub mod idioms {
    use super::geometry;
    use super::geometry::sincos;
    use autodiff::differentiable;

    const COEFFS: [f64; 4] = [0.5, -1.25, 2.0, 0.75];
    const KNOTS: [f64; 5] = [-2.0, -1.0, 0.0, 1.5, 3.0];
    const VALUES: [f64; 5] = [1.0, -0.5, 0.25, 2.0, 1.0];

    /// `match` on an integer with `|` and range patterns, one arm a constant.
    #[differentiable(order = 2)]
    pub fn match_degree(x: f64, k: usize) -> f64 {
        match k {
            0 => 1.0,
            1 | 2 => x * k as f64,
            3..=5 => x.powi(k as i32) - x,
            _ => x.exp(),
        }
    }

    /// `match` yielding a tuple, then the tuple used.
    #[differentiable(order = 2)]
    pub fn match_pair(x: f64, y: f64, mode: u8) -> f64 {
        let (a, b) = match mode {
            0 => (x, y),
            1 => (y, x),
            _ => (x * y, x + y),
        };
        a * a.sin() + b
    }

    /// An index that may be out of range, tested before use (`if let Some(k)` and `match` on an
    /// `Option` are spanned errors).
    #[differentiable(order = 2)]
    pub fn maybe_index(x: &[f64], pick: usize) -> f64 {
        if pick < x.len() {
            x[pick] * x[pick] + x[0]
        } else {
            x[0].sin()
        }
    }

    /// `while` with a compound condition on a counter and an active value.
    #[differentiable(order = 2)]
    pub fn while_compound(a: f64, limit: usize) -> f64 {
        let mut s = a;
        let mut i = 0;
        while i < limit && s.abs() < 100.0 {
            s = s * 1.5 + 0.25 * a;
            i += 1;
        }
        s
    }

    /// Newton's iteration for `sqrt(a)`, stopped by an accuracy test or a count.
    #[differentiable(order = 2)]
    pub fn newton_sqrt(a: f64) -> f64 {
        let mut y = a.max(1.0);
        let mut i = 0;
        while i < 60 && (y * y - a).abs() > 1e-14 * a {
            y = 0.5 * (y + a / y);
            i += 1;
        }
        y
    }

    /// An early `return` from two nested loops.
    #[differentiable(order = 2)]
    pub fn first_big_product(x: &[f64], threshold: f64) -> f64 {
        for i in 0..x.len() {
            for j in (i + 1)..x.len() {
                let p = x[i] * x[j];
                if p > threshold {
                    return p.sqrt() + x[i];
                }
            }
        }
        x.iter().map(|v| v * v).sum::<f64>()
    }

    /// An early `return` from a loop over `const` knots (an array returned from a loop is a spanned
    /// error).
    #[differentiable(order = 2)]
    pub fn bracket(x: f64) -> f64 {
        for i in 0..4 {
            let lo = KNOTS[i];
            if x < KNOTS[i + 1] {
                return (x - lo) * x;
            }
        }
        x * x
    }

    /// Shadowing, in the body and in a loop.
    #[differentiable(order = 2)]
    pub fn shadowing(x: f64, n: usize) -> f64 {
        let x = x * 2.0;
        let y = x + 1.0;
        let x = x.sin() * y;
        let mut acc = 0.0;
        for i in 0..n {
            let x = x * (i as f64 + 1.0);
            let acc2 = acc + x.cos();
            acc = acc2;
        }
        acc + x
    }

    /// A helper in another module returning a tuple, destructured and indexed as `.0`, `.1`.
    #[differentiable(order = 2)]
    pub fn uses_tuple_helper(t: f64, r: f64) -> f64 {
        let (s, c) = sincos(t);
        let (p0, p1) = geometry::sincos(2.0 * t);
        r * s * s - c * r + p0 * p1
    }

    /// The rotation helper, chained twice.
    #[differentiable]
    pub fn rotated_norm(x: f64, y: f64, a: f64) -> f64 {
        let (u, v) = geometry::rotate(x, y, a);
        let (p, q) = geometry::rotate(u, v, -0.5 * a);
        p * p + 3.0 * q * q
    }

    /// A chain of float methods with kinks kept away from the sampled points.
    #[differentiable(order = 2)]
    pub fn method_chain(x: f64, y: f64) -> f64 {
        let a = x.max(y).min(2.5).abs().powi(3);
        let b = a.hypot(y).atan2(x.powf(2.0) + 1.0);
        let c = (b * b + 1.0).sqrt().exp_m1().ln_1p();
        c + x.sin().cosh() * y.tanh().asinh()
    }

    /// `f64::max(a, b)` and `f64::sqrt(x)` in their function-call form.
    #[differentiable(order = 2)]
    pub fn ufcs_calls(x: f64, y: f64) -> f64 {
        f64::max(x, y) + f64::sqrt(x * x + y * y) + f64::powi(x, 2) * f64::sin(y)
    }

    /// `iter().zip().map().sum()`: the squared distance of two slices.
    #[differentiable(order = 2)]
    pub fn sq_dist(x: &[f64], y: &[f64]) -> f64 {
        x.iter()
            .zip(y.iter())
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    }

    /// Horner's rule by `fold` with the active point captured.
    #[differentiable(order = 2)]
    pub fn polyval(c: &[f64], t: f64) -> f64 {
        c.iter().fold(0.0, |acc, &ci| acc * t + ci)
    }

    /// Horner's rule over a `const` array.
    #[differentiable(order = 2)]
    pub fn polyval_const(t: f64) -> f64 {
        let mut acc = 0.0;
        for i in 0..COEFFS.len() {
            acc = acc * t + COEFFS[i];
        }
        acc
    }

    /// A `const` item in the body, and `std::f64::consts`.
    #[differentiable(order = 2)]
    pub fn const_in_body(x: f64) -> f64 {
        const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_7;
        let z = x / std::f64::consts::SQRT_2;
        -z * z - HALF_LOG_TWO_PI + (std::f64::consts::PI * x).cos()
    }

    /// Closures bound to locals, one capturing an active parameter.
    #[differentiable(order = 2)]
    pub fn closures(x: &[f64], a: f64) -> f64 {
        let sq = |v: f64| v * v;
        let scale = |v: f64| v * a;
        let mut s = 0.0;
        for i in 0..x.len() {
            s += sq(scale(x[i])) + scale(1.0);
        }
        s
    }

    /// `iter().enumerate()` with a pattern, and `copied()` with `product()`.
    #[differentiable(order = 2)]
    pub fn enumerate_product(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, &v) in x.iter().enumerate() {
            s += (i as f64 + 1.0) * v * v;
        }
        s + x.iter().copied().product::<f64>()
    }

    /// `jnp.interp` over `const` knots: a search with `break`, then linear interpolation.
    #[differentiable(order = 2)]
    pub fn interp(x: f64) -> f64 {
        let mut k = 0;
        while k + 2 < KNOTS.len() && x > KNOTS[k + 1] {
            k += 1;
        }
        let t = (x - KNOTS[k]) / (KNOTS[k + 1] - KNOTS[k]);
        VALUES[k] * (1.0 - t) + VALUES[k + 1] * t
    }

    /// The quadratic form `xᵀ A x` with `A` a `[[f64; 3]; 3]`.
    #[differentiable(order = 2)]
    pub fn quad_form(a: [[f64; 3]; 3], x: [f64; 3]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                s += x[i] * a[i][j] * x[j];
            }
        }
        s
    }

    /// A matrix as `&[[f64; 3]; 3]` passed on to the quadratic form, with its row sums.
    #[differentiable(order = 2)]
    pub fn quad_form_ref(a: &[[f64; 3]; 3], x: &[f64; 3]) -> f64 {
        let mut rows = 0.0;
        for row in a.iter() {
            rows += row[0] - row[2];
        }
        quad_form(*a, *x) + rows
    }

    /// `Vec<Vec<f64>>` by value: the Frobenius norm of `A B`.
    #[differentiable(order = 2)]
    pub fn frob_product(a: Vec<Vec<f64>>, b: &[Vec<f64>]) -> f64 {
        let n = a.len();
        let m = b[0].len();
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..m {
                let mut c = 0.0;
                for k in 0..b.len() {
                    c += a[i][k] * b[k][j];
                }
                s += c * c;
            }
        }
        s.sqrt()
    }

    /// `loop` with `break` carrying a value.
    #[differentiable(order = 2)]
    pub fn loop_break_value(a: f64) -> f64 {
        let mut x = a;
        let mut n = 0;
        let r = loop {
            x = x.sin() + 0.5 * a;
            n += 1;
            if n == 5 {
                break x * a;
            }
        };
        r
    }

    /// `let (lo, hi) = if ..` and a tuple of arrays' elements.
    #[differentiable(order = 2)]
    pub fn ordered(a: f64, b: f64) -> f64 {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        hi.ln() - lo * hi
    }

    /// `(0..n).map(|i| ..).sum()`: a dot product over a range.
    #[differentiable(order = 2)]
    pub fn range_map_dot(x: &[f64], w: &[f64]) -> f64 {
        let n = x.len();
        (0..n).map(|i| x[i] * w[i]).sum::<f64>().tanh()
    }

    /// An array's elements bound by a tuple pattern.
    #[differentiable(order = 2)]
    pub fn array_pattern(x: [f64; 3]) -> f64 {
        let (a, b, c) = (x[0], x[1], x[2]);
        a * b.exp() - c / (1.0 + a * a)
    }

    /// `mul_add`, `recip`, `cbrt`, `log`, `log2`, `log10`, `exp2`.
    #[differentiable(order = 2)]
    pub fn more_methods(x: f64, y: f64) -> f64 {
        x.mul_add(y, 1.0).recip() + x.cbrt() + y.log(3.0) + x.log2() * y.log10() + (0.1 * x).exp2()
    }

    /// A float remainder, as `jnp.fmod` (`lax.rem`).
    #[differentiable(order = 2)]
    pub fn remainder(x: f64, y: f64) -> f64 {
        (x * x) % y
    }

    /// The sign and magnitude split.
    #[differentiable(order = 2)]
    pub fn signed_sqrt(x: f64) -> f64 {
        x.signum() * x.abs().sqrt()
    }

    /// Unary minus against method precedence: `-x.powi(2)` is `-(x²)`.
    #[differentiable(order = 2)]
    pub fn neg_precedence(x: f64) -> f64 {
        -x.powi(2) + (-x).exp()
    }

    /// `clamp`, as `jnp.clip`.
    #[differentiable(order = 2)]
    pub fn clip(x: f64, lo: f64, hi: f64) -> f64 {
        x.clamp(lo, hi) * x
    }

    /// A running maximum by `fold` with a closure, then a stable log-sum-exp.
    #[differentiable(order = 2)]
    pub fn logsumexp(x: &[f64]) -> f64 {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
        m + s.ln()
    }

    /// Softmax as a `Vec` result.
    #[differentiable]
    pub fn softmax(x: &[f64]) -> Vec<f64> {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut e = vec![0.0; x.len()];
        let mut s = 0.0;
        for i in 0..x.len() {
            e[i] = (x[i] - m).exp();
            s += e[i];
        }
        for i in 0..x.len() {
            e[i] /= s;
        }
        e
    }

    /// Cross-entropy of the softmax against an integer label.
    #[differentiable(order = 2, wrt(logits))]
    pub fn cross_entropy(logits: &[f64], label: usize) -> f64 {
        logsumexp(logits) - logits[label]
    }

    /// A sub-slice passed to a callee.
    #[differentiable(order = 2)]
    pub fn window_sums(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 2 {
            s += logsumexp(&x[i..i + 3]) * (i as f64 + 1.0);
        }
        s + sq_dist(&x[1..], &x[..x.len() - 1])
    }

    /// A local `Vec` written in a loop and read backwards.
    #[differentiable(order = 2)]
    pub fn cumsum_weighted(x: &[f64]) -> f64 {
        let mut c = vec![0.0; x.len()];
        let mut run = 0.0;
        for i in 0..x.len() {
            run += x[i];
            c[i] = run;
        }
        let mut s = 0.0;
        for i in (0..x.len()).rev() {
            s = s * 0.5 + c[i] * c[i];
        }
        s
    }

    /// A `continue` and a `break` in one loop, `for &v in xs`.
    #[differentiable(order = 2)]
    pub fn skip_and_stop(x: &[f64], stop: f64) -> f64 {
        let mut s = 0.0;
        for &v in x {
            if v < 0.0 {
                continue;
            }
            s += v.sqrt() * stop;
            if s > 3.0 {
                break;
            }
        }
        s
    }

    /// Distances between consecutive points through the other module's helper.
    #[differentiable(order = 2)]
    pub fn path_length(xs: &[f64], ys: &[f64]) -> f64 {
        let mut len = 0.0;
        for i in 1..xs.len() {
            len += geometry::dist(xs[i - 1], ys[i - 1], xs[i], ys[i]);
        }
        len
    }

    /// A step of RK4 with a closure for the right-hand side, captured parameters active.
    #[differentiable(order = 2)]
    pub fn rk4_decay(y0: f64, k: f64, steps: usize) -> f64 {
        let h = 0.1;
        let f = |y: f64| -k * y + (y * 0.5).sin();
        let mut y = y0;
        for _ in 0..steps {
            let k1 = f(y);
            let k2 = f(y + 0.5 * h * k1);
            let k3 = f(y + 0.5 * h * k2);
            let k4 = f(y + h * k3);
            y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        }
        y
    }

    /// A generic function at `f64` and `f32`.
    #[differentiable(order = 2)]
    pub fn rosenbrock<T: autodiff::Float>(x: &[T]) -> T {
        let hundred = T::from(100.0).unwrap();
        let mut s = T::zero();
        for i in 0..x.len() - 1 {
            let a = x[i + 1] - x[i] * x[i];
            let b = T::one() - x[i];
            s = s + hundred * a * a + b * b;
        }
        s
    }

    /// An `f32` function.
    #[differentiable(order = 2)]
    pub fn single(x: f32, y: f32) -> f32 {
        (x * y).sin() + x.powi(2) * 0.5
    }

    /// Recursion: `x^n` by squaring.
    #[differentiable(order = 2)]
    pub fn pow_rec(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else if n % 2 == 0 {
            let h = pow_rec(x, n / 2);
            h * h
        } else {
            x * pow_rec(x, n - 1)
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// JAX-style numeric functions (jax.nn, jax.numpy, and the shapes of JAX's grad tests).
// ---------------------------------------------------------------------------------------------------

pub mod jaxlike {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn sin_cos(x: f64, y: f64) -> f64 {
        x.sin() * y.cos()
    }

    /// `jax.nn.softplus`, the stable form.
    #[differentiable(order = 2)]
    pub fn softplus(x: f64) -> f64 {
        x.max(0.0) + (-x.abs()).exp().ln_1p()
    }

    /// `jax.nn.gelu(approximate=True)`.
    #[differentiable(order = 2)]
    pub fn gelu(x: f64) -> f64 {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x.powi(3))).tanh())
    }

    /// `jax.nn.silu`.
    #[differentiable(order = 2)]
    pub fn silu(x: f64) -> f64 {
        x / (1.0 + (-x).exp())
    }

    /// `jax.nn.elu`.
    #[differentiable(order = 2)]
    pub fn elu(x: f64, alpha: f64) -> f64 {
        if x > 0.0 {
            x
        } else {
            alpha * x.exp_m1()
        }
    }

    /// `jax.nn.leaky_relu`.
    #[differentiable(order = 2)]
    pub fn leaky_relu(x: f64) -> f64 {
        if x >= 0.0 {
            x
        } else {
            0.01 * x
        }
    }

    /// `jax.scipy.special.xlogy`.
    #[differentiable(order = 2)]
    pub fn xlogy(x: f64, y: f64) -> f64 {
        if x == 0.0 {
            0.0
        } else {
            x * y.ln()
        }
    }

    /// `jnp.logaddexp`.
    #[differentiable(order = 2)]
    pub fn logaddexp(a: f64, b: f64) -> f64 {
        let m = a.max(b);
        m + ((a - m).exp() + (b - m).exp()).ln()
    }

    /// Huber loss over residuals.
    #[differentiable(order = 2)]
    pub fn huber(pred: &[f64], target: &[f64], delta: f64) -> f64 {
        let mut s = 0.0;
        for (p, t) in pred.iter().zip(target) {
            let r = (p - t).abs();
            s += if r <= delta {
                0.5 * r * r
            } else {
                delta * (r - 0.5 * delta)
            };
        }
        s / pred.len() as f64
    }

    /// `jnp.linalg.norm` of a difference, then a barrier.
    #[differentiable(order = 2)]
    pub fn norm_barrier(x: &[f64]) -> f64 {
        let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        n - (4.0 - n * n).ln()
    }

    /// `jax.lax.fori_loop`-shaped recurrence with the index in the body.
    #[differentiable(order = 2)]
    pub fn fori(x: f64, n: usize) -> f64 {
        let mut c = x;
        for i in 0..n {
            c = c * 0.9 + (i as f64) * c.sin() * 0.1;
        }
        c
    }

    /// `jax.lax.cond`.
    #[differentiable(order = 2)]
    pub fn cond(x: f64) -> f64 {
        if x < 3.0 {
            x * x
        } else {
            -x
        }
    }

    /// `jnp.sinc` with its removable singularity written out.
    #[differentiable(order = 2)]
    pub fn sinc(x: f64) -> f64 {
        let px = std::f64::consts::PI * x;
        if px.abs() < 1e-4 {
            1.0 - px * px / 6.0
        } else {
            px.sin() / px
        }
    }

    /// A two-layer perceptron's squared error, weights in one flat slice.
    #[differentiable(order = 2, wrt(w))]
    pub fn mlp(w: &[f64], xs: &[f64], ys: &[f64], hidden: usize) -> f64 {
        let mut loss = 0.0;
        for (n, &x) in xs.iter().enumerate() {
            let mut out = w[3 * hidden];
            for j in 0..hidden {
                let h = (w[j] * x + w[hidden + j]).tanh();
                out += w[2 * hidden + j] * h;
            }
            let e = out - ys[n];
            loss += e * e;
        }
        0.5 * loss
    }

    /// `jnp.arctan2` and `jnp.hypot` together.
    #[differentiable(order = 2)]
    pub fn polar_energy(x: f64, y: f64) -> f64 {
        let r = x.hypot(y);
        let t = y.atan2(x);
        r * r * t.cos() + t * t
    }
}

// ---------------------------------------------------------------------------------------------------
// Custom gradients.
// ---------------------------------------------------------------------------------------------------

pub mod customs {
    use autodiff::{custom_gradient, differentiable};

    #[custom_gradient]
    pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }

    /// The straight-through estimator: `round` forward, the identity backward.
    #[custom_gradient]
    pub fn st_round(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x.round(), move |dy| dy)
    }

    /// The identity, whose cotangent is clipped to `[-1, 1]`.
    #[custom_gradient]
    pub fn clip_grad(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x, move |dy: f64| dy.max(-1.0).min(1.0))
    }

    /// A two-input custom gradient: `a / b` with `b` kept away from zero in the backward pass.
    #[custom_gradient]
    pub fn safe_div(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let q = a / b;
        let bb = if b.abs() < 1e-3 { 1e-3 } else { b };
        (q, move |dy: f64| (dy / bb, -dy * q / bb))
    }

    #[differentiable(order = 2)]
    pub fn softplus_loss(x: &[f64], w: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += log1pexp(w * x[i] - 1.0);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn quantised_square(x: f64) -> f64 {
        st_round(x) * x
    }

    #[differentiable]
    pub fn clipped_scale(x: f64) -> f64 {
        clip_grad(x) * 5.0
    }

    #[differentiable]
    pub fn clipped_in_loop(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += clip_grad(x[i] * x[i]) * (i as f64 + 1.0);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn ratio_sum(a: f64, b: f64) -> f64 {
        safe_div(a, b) + safe_div(b * b, a)
    }
}

// ---------------------------------------------------------------------------------------------------
// Parameter structs and their methods.
// ---------------------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
pub struct Springs {
    pub k: f64,
    pub rest: Vec<f64>,
    pub anchor: [f64; 2],
    #[no_grad]
    pub count: usize,
}

impl Springs {
    #[differentiable]
    fn pair_energy(k: f64, d: f64) -> f64 {
        0.5 * k * d * d
    }

    /// The energy of a chain of springs: `wrt(self)`, calling an associated helper.
    #[differentiable(order = 2, wrt(self))]
    pub fn energy(&self, x: &[f64]) -> f64 {
        let mut e = Self::pair_energy(self.k, x[0] - self.anchor[0]);
        for i in 1..self.count {
            let d = x[i] - x[i - 1] - self.rest[i - 1];
            e += Self::pair_energy(self.k, d);
        }
        e + self.anchor[1] * x[self.count - 1]
    }

    /// The same energy as a function of the positions, `self` constant, calling the `wrt(self)` method
    /// (at `order = 2` through `energy`'s copy with a constant `self`, which calls `pair_energy`'s copy).
    #[differentiable]
    pub fn energy_at(&self, x: &[f64]) -> f64 {
        self.energy(x)
    }
}

/// A free function of the struct.
#[differentiable(order = 2, wrt(s))]
fn springs_total(s: &Springs, x: &[f64]) -> f64 {
    Springs::energy(s, x) + s.k * s.k
}

// ---------------------------------------------------------------------------------------------------
// Output parameters.
// ---------------------------------------------------------------------------------------------------

pub mod outputs {
    use autodiff::differentiable;

    /// The Lorenz system's right-hand side.
    #[differentiable]
    pub fn lorenz(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        dydt[0] = p[0] * (y[1] - y[0]);
        dydt[1] = y[0] * (p[1] - y[2]) - y[1];
        dydt[2] = y[0] * y[1] - p[2] * y[2];
    }

    /// A residual written into a buffer, its squared norm returned.
    #[differentiable(order = 2)]
    pub fn residual_norm(x: &[f64], r: &mut [f64]) -> f64 {
        for i in 0..x.len() {
            r[i] = x[i] * x[i] - (i as f64 + 1.0);
        }
        let mut s = 0.0;
        for i in 0..r.len() {
            s += r[i] * r[i];
        }
        s
    }

    /// An accumulator whose incoming value is read.
    #[differentiable]
    pub fn accumulate(x: &[f64], acc: &mut [f64]) {
        for i in 0..x.len() {
            acc[i] += x[i].sin() * acc[i];
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Tests of the idioms, JAX-style functions, custom gradients, structs and outputs.
// ---------------------------------------------------------------------------------------------------

use idioms as id;
use jaxlike as jx;

/// A probe of `f(x: &[f64], y: &[f64])` seen as one flat vector `(x, y)` split at `n`.
macro_rules! two_slices {
    ($name:expr, $f:path, $g:path, $j:path, $gi:path, $h:path, $n:expr) => {{
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
            .hessian(move |x| {
                let (v, (a, b), h) = $h(&x[..n], &x[n..]);
                (v, [a, b].concat(), h)
            })
    }};
}

/// A probe of `f(x: &[f64], s: f64)`.
macro_rules! slice_scalar {
    ($name:expr, $f:path, $g:path, $j:path, $gi:path, $h:path) => {{
        Probe::new($name, move |x| {
            let n = x.len() - 1;
            $f(&x[..n], x[n])
        })
        .grad(move |x| {
            let n = x.len() - 1;
            let (v, (a, b)) = $g(&x[..n], x[n]);
            (v, [a, vec![b]].concat())
        })
        .jvp(move |x, t| {
            let n = x.len() - 1;
            $j(&x[..n], x[n], (t[..n].to_vec(), t[n]))
        })
        .grad_into(move |x| {
            let n = x.len() - 1;
            let mut a = vec![GARBAGE; n];
            let mut b = GARBAGE;
            let v = $gi(&x[..n], x[n], (&mut a, &mut b));
            (v, [a, vec![b]].concat())
        })
        .hessian(move |x| {
            let n = x.len() - 1;
            let (v, (a, b), h) = $h(&x[..n], x[n]);
            (v, [a, vec![b]].concat(), h)
        })
    }};
}

#[test]
fn idioms_match_and_control_flow() {
    for k in 0..8 {
        Probe::new("match_degree", move |x| id::match_degree(x[0], k))
            .grad(move |x| {
                let (v, g) = id::match_degree_grad(x[0], k);
                (v, vec![g])
            })
            .jvp(move |x, t| id::match_degree_jvp(x[0], k, t[0]))
            .grad_into(move |x| {
                let mut g = GARBAGE;
                let v = id::match_degree_grad_into(x[0], k, &mut g);
                (v, vec![g])
            })
            .analytic(move |x| {
                let a = x[0];
                vec![match k {
                    0 => 0.0,
                    1 | 2 => k as f64,
                    3..=5 => k as f64 * a.powi(k as i32 - 1) - 1.0,
                    _ => a.exp(),
                }]
            })
            .run(10, range(1, -1.5, 1.5));
        let (_, g, h) = id::match_degree_hessian(0.7, k);
        let d = id::match_degree_derivatives(0.7, k);
        assert_eq!(d[1], g, "match_degree_derivatives, k = {k}");
        let second = match k {
            0..=2 => 0.0,
            3..=5 => (k * (k - 1)) as f64 * 0.7f64.powi(k as i32 - 2),
            _ => 0.7f64.exp(),
        };
        assert_near(
            h[0][0],
            second,
            1e-12,
            1.0,
            &format!("match_degree_hessian, k = {k}"),
        );
    }
    for mode in 0..3u8 {
        Probe::new("match_pair", move |x| id::match_pair(x[0], x[1], mode))
            .grad(move |x| {
                let (v, g) = id::match_pair_grad(x[0], x[1], mode);
                (v, vec![g.0, g.1])
            })
            .jvp(move |x, t| id::match_pair_jvp(x[0], x[1], mode, (t[0], t[1])))
            .hessian(move |x| {
                let (v, g, h) = id::match_pair_hessian(x[0], x[1], mode);
                (v, vec![g.0, g.1], h)
            })
            .run(POINTS, range(2, -2.0, 2.0));
    }
    for pick in [0, 2, 7] {
        Probe::new("maybe_index", move |x| id::maybe_index(x, pick))
            .grad(move |x| id::maybe_index_grad(x, pick))
            .jvp(move |x, t| id::maybe_index_jvp(x, pick, t.to_vec()))
            .hessian(move |x| id::maybe_index_hessian(x, pick))
            .run(POINTS, range(4, -2.0, 2.0));
    }
    for limit in [0, 3, 12] {
        Probe::new("while_compound", move |x| id::while_compound(x[0], limit))
            .grad(move |x| {
                let (v, g) = id::while_compound_grad(x[0], limit);
                (v, vec![g])
            })
            .jvp(move |x, t| id::while_compound_jvp(x[0], limit, t[0]))
            .hessian(move |x| {
                let (v, g, h) = id::while_compound_hessian(x[0], limit);
                (v, vec![g], h)
            })
            .run(POINTS, |r: &mut Lcg| {
                // Away from the values where the trip count changes.
                loop {
                    let a = r.uniform(-3.0, 3.0);
                    let near = |b: f64| {
                        (id::while_compound(b - 1e-4, limit) - id::while_compound(b + 1e-4, limit))
                            .abs()
                            > 0.1
                    };
                    if !near(a) {
                        break vec![a];
                    }
                }
            });
    }
    one(
        "newton_sqrt",
        id::newton_sqrt,
        id::newton_sqrt_grad,
        id::newton_sqrt_jvp,
        id::newton_sqrt_grad_into,
    )
    .hessian(hess1(id::newton_sqrt_hessian, id::newton_sqrt_derivatives))
    .run(POINTS, range(1, 0.2, 9.0));
    for a in [0.3, 2.0, 7.5] {
        let (v, g) = id::newton_sqrt_grad(a);
        assert_near(v, a.sqrt(), 1e-13, 0.0, "newton_sqrt");
        assert_near(g, 0.5 / a.sqrt(), 1e-9, 0.0, "newton_sqrt_grad");
    }
    for threshold in [0.5, 2.0, 100.0] {
        Probe::new("first_big_product", move |x| {
            id::first_big_product(&x[..4], x[4])
        })
        .grad(move |x| {
            let (v, (a, b)) = id::first_big_product_grad(&x[..4], x[4]);
            (v, [a, vec![b]].concat())
        })
        .jvp(move |x, t| id::first_big_product_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
        .hessian(move |x| {
            let (v, (a, b), h) = id::first_big_product_hessian(&x[..4], x[4]);
            (v, [a, vec![b]].concat(), h)
        })
        .analytic(|x| {
            // Which pair returned, worked out here.
            for i in 0..4 {
                for j in i + 1..4 {
                    let p = x[i] * x[j];
                    if p > x[4] {
                        let mut g = vec![0.0; 5];
                        let d = 0.5 / p.sqrt();
                        g[i] += d * x[j] + 1.0;
                        g[j] += d * x[i];
                        return g;
                    }
                }
            }
            let mut g: Vec<f64> = x[..4].iter().map(|v| 2.0 * v).collect();
            g.push(0.0);
            g
        })
        .run(POINTS, move |r: &mut Lcg| loop {
            let mut x = r.vec(4, -2.0, 2.0);
            x.push(threshold);
            let close = (0..4).any(|i| (i + 1..4).any(|j| (x[i] * x[j] - threshold).abs() < 0.05));
            if !close {
                break x;
            }
        });
    }
    one(
        "bracket",
        id::bracket,
        id::bracket_grad,
        id::bracket_jvp,
        id::bracket_grad_into,
    )
    .hessian(hess1(id::bracket_hessian, id::bracket_derivatives))
    .analytic(|x| {
        let knots = [-2.0, -1.0, 0.0, 1.5, 3.0];
        let a = x[0];
        for i in 0..4 {
            if a < knots[i + 1] {
                return vec![2.0 * a - knots[i]];
            }
        }
        vec![2.0 * a]
    })
    .run(POINTS, away_from(1, -3.0, 4.0, 0.5, 0.0));
    one(
        "interp",
        id::interp,
        id::interp_grad,
        id::interp_jvp,
        id::interp_grad_into,
    )
    .hessian(hess1(id::interp_hessian, id::interp_derivatives))
    .analytic(|x| {
        let (knots, values) = ([-2.0, -1.0, 0.0, 1.5, 3.0], [1.0, -0.5, 0.25, 2.0, 1.0]);
        let mut k = 0;
        while k + 2 < 5 && x[0] > knots[k + 1] {
            k += 1;
        }
        vec![(values[k + 1] - values[k]) / (knots[k + 1] - knots[k])]
    })
    .run(POINTS, away_from(1, -3.0, 4.0, 0.5, 0.0));
    one(
        "loop_break_value",
        id::loop_break_value,
        id::loop_break_value_grad,
        id::loop_break_value_jvp,
        id::loop_break_value_grad_into,
    )
    .hessian(hess1(
        id::loop_break_value_hessian,
        id::loop_break_value_derivatives,
    ))
    .run(POINTS, range(1, -2.0, 2.0));
    for stop in [0.5, 2.0] {
        slice_scalar!(
            "skip_and_stop",
            id::skip_and_stop,
            id::skip_and_stop_grad,
            id::skip_and_stop_jvp,
            id::skip_and_stop_grad_into,
            id::skip_and_stop_hessian
        )
        .run(POINTS, move |r: &mut Lcg| loop {
            let mut x = r.vec(5, -1.0, 3.0);
            x.push(stop);
            // Away from 0 (the `continue`) and from a running sum of 3 (the `break`).
            let mut s = 0.0;
            let mut ok = x[..5].iter().all(|v| v.abs() > 0.05);
            for &v in &x[..5] {
                if v < 0.0 {
                    continue;
                }
                s += v.sqrt() * stop;
                ok &= (s - 3.0).abs() > 0.05;
                if s > 3.0 {
                    break;
                }
            }
            if ok {
                break x;
            }
        });
    }
    for n in [0, 1, 4] {
        Probe::new("shadowing", move |x| id::shadowing(x[0], n))
            .grad(move |x| {
                let (v, g) = id::shadowing_grad(x[0], n);
                (v, vec![g])
            })
            .jvp(move |x, t| id::shadowing_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, g, h) = id::shadowing_hessian(x[0], n);
                (v, vec![g], h)
            })
            .run(POINTS, range(1, -2.0, 2.0));
    }
    for n in [0, 1, 5] {
        let (d, expected) = (id::pow_rec_derivatives(1.3, n), 1.3f64.powi(n as i32));
        assert_near(d[0], expected, 1e-13, 0.0, "pow_rec");
        assert_near(
            d[1],
            n as f64 * 1.3f64.powi(n as i32 - 1),
            1e-12,
            0.0,
            "pow_rec'",
        );
        let second = if n >= 2 {
            (n * (n - 1)) as f64 * 1.3f64.powi(n as i32 - 2)
        } else {
            0.0
        };
        assert_near(d[2], second, 1e-12, 0.0, "pow_rec''");
    }
    one(
        "pow_rec",
        |a| id::pow_rec(a, 7),
        |a| id::pow_rec_grad(a, 7),
        |a, t| id::pow_rec_jvp(a, 7, t),
        |a, g| id::pow_rec_grad_into(a, 7, g),
    )
    .analytic(|x| vec![7.0 * x[0].powi(6)])
    .run(POINTS, range(1, -1.5, 1.5));
    two(
        "ordered",
        id::ordered,
        id::ordered_grad,
        id::ordered_jvp,
        id::ordered_grad_into,
    )
    .hessian(hess2(id::ordered_hessian))
    .analytic(|x| {
        let (lo, hi, swap) = if x[0] < x[1] {
            (x[0], x[1], false)
        } else {
            (x[1], x[0], true)
        };
        let (dlo, dhi) = (-hi, 1.0 / hi - lo);
        if swap {
            vec![dhi, dlo]
        } else {
            vec![dlo, dhi]
        }
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2, 0.2, 3.0);
        if (x[0] - x[1]).abs() > 0.05 {
            break x;
        }
    });
}

#[test]
fn idioms_calls_tuples_and_methods_of_floats() {
    Probe::new("uses_tuple_helper", |x| id::uses_tuple_helper(x[0], x[1]))
        .grad(|x| {
            let (v, g) = id::uses_tuple_helper_grad(x[0], x[1]);
            (v, vec![g.0, g.1])
        })
        .jvp(|x, t| id::uses_tuple_helper_jvp(x[0], x[1], (t[0], t[1])))
        .grad_into(|x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = id::uses_tuple_helper_grad_into(x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        })
        .hessian(hess2(id::uses_tuple_helper_hessian))
        .analytic(|x| {
            let (t, r) = (x[0], x[1]);
            let (s, c) = t.sin_cos();
            vec![
                2.0 * r * s * c + s * r + 2.0 * (2.0 * t).cos().powi(2)
                    - 2.0 * (2.0 * t).sin().powi(2),
                s * s - c,
            ]
        })
        .run(POINTS, range(2, -2.0, 2.0));
    three(
        "rotated_norm",
        id::rotated_norm,
        id::rotated_norm_grad,
        id::rotated_norm_jvp,
        id::rotated_norm_grad_into,
    )
    .run(POINTS, range(3, -2.0, 2.0));
    two(
        "method_chain",
        id::method_chain,
        id::method_chain_grad,
        id::method_chain_jvp,
        id::method_chain_grad_into,
    )
    .hessian(hess2(id::method_chain_hessian))
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2, -2.0, 2.0);
        let m = x[0].max(x[1]);
        if (x[0] - x[1]).abs() > 0.05 && (m - 2.5).abs() > 0.05 && m.abs() > 0.05 {
            break x;
        }
    });
    two(
        "ufcs_calls",
        id::ufcs_calls,
        id::ufcs_calls_grad,
        id::ufcs_calls_jvp,
        id::ufcs_calls_grad_into,
    )
    .hessian(hess2(id::ufcs_calls_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let r = a.hypot(b);
        let (dm0, dm1) = if a > b { (1.0, 0.0) } else { (0.0, 1.0) };
        vec![
            dm0 + a / r + 2.0 * a * b.sin(),
            dm1 + b / r + a * a * b.cos(),
        ]
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2, -2.0, 2.0);
        if (x[0] - x[1]).abs() > 0.05 {
            break x;
        }
    });
    two(
        "more_methods",
        id::more_methods,
        id::more_methods_grad,
        id::more_methods_jvp,
        id::more_methods_grad_into,
    )
    .hessian(hess2(id::more_methods_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let m = a * b + 1.0;
        vec![
            -b / (m * m)
                + a.powf(-2.0 / 3.0) / 3.0
                + b.log10() / (a * 2f64.ln())
                + 0.1 * 2f64.ln() * (0.1 * a).exp2(),
            -a / (m * m) + 1.0 / (b * 3f64.ln()) + a.log2() / (b * 10f64.ln()),
        ]
    })
    .run(POINTS, range(2, 0.3, 3.0));
    two(
        "remainder",
        id::remainder,
        id::remainder_grad,
        id::remainder_jvp,
        id::remainder_grad_into,
    )
    .hessian(hess2(id::remainder_hessian))
    .analytic(|x| vec![2.0 * x[0], -(x[0] * x[0] / x[1]).trunc()])
    .run(POINTS, |r: &mut Lcg| loop {
        let x = vec![r.uniform(-2.5, 2.5), r.uniform(0.7, 2.0)];
        let q = x[0] * x[0] / x[1];
        if (q - q.round()).abs() > 0.02 {
            break x;
        }
    });
    one(
        "signed_sqrt",
        id::signed_sqrt,
        id::signed_sqrt_grad,
        id::signed_sqrt_jvp,
        id::signed_sqrt_grad_into,
    )
    .hessian(hess1(id::signed_sqrt_hessian, id::signed_sqrt_derivatives))
    .analytic(|x| vec![0.5 / x[0].abs().sqrt()])
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(1, -3.0, 3.0);
        if x[0].abs() > 0.1 {
            break x;
        }
    });
    one(
        "neg_precedence",
        id::neg_precedence,
        id::neg_precedence_grad,
        id::neg_precedence_jvp,
        id::neg_precedence_grad_into,
    )
    .hessian(hess1(
        id::neg_precedence_hessian,
        id::neg_precedence_derivatives,
    ))
    .analytic(|x| vec![-2.0 * x[0] - (-x[0]).exp()])
    .run(POINTS, range(1, -2.0, 2.0));
    three(
        "clip",
        id::clip,
        id::clip_grad,
        id::clip_jvp,
        id::clip_grad_into,
    )
    .hessian(hess3(id::clip_hessian))
    .analytic(|x| {
        let (v, lo, hi) = (x[0], x[1], x[2]);
        if v < lo {
            vec![lo, v, 0.0]
        } else if v > hi {
            vec![hi, 0.0, v]
        } else {
            vec![2.0 * v, 0.0, 0.0]
        }
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = vec![
            r.uniform(-2.0, 2.0),
            r.uniform(-1.5, -0.2),
            r.uniform(0.2, 1.5),
        ];
        if (x[0] - x[1]).abs() > 0.05 && (x[0] - x[2]).abs() > 0.05 {
            break x;
        }
    });
    one(
        "polyval_const",
        id::polyval_const,
        id::polyval_const_grad,
        id::polyval_const_jvp,
        id::polyval_const_grad_into,
    )
    .hessian(hess1(
        id::polyval_const_hessian,
        id::polyval_const_derivatives,
    ))
    .analytic(|x| vec![3.0 * 0.5 * x[0] * x[0] - 2.0 * 1.25 * x[0] + 2.0])
    .run(POINTS, range(1, -2.0, 2.0));
    one(
        "const_in_body",
        id::const_in_body,
        id::const_in_body_grad,
        id::const_in_body_jvp,
        id::const_in_body_grad_into,
    )
    .hessian(hess1(
        id::const_in_body_hessian,
        id::const_in_body_derivatives,
    ))
    .analytic(|x| vec![-x[0] - std::f64::consts::PI * (std::f64::consts::PI * x[0]).sin()])
    .run(POINTS, range(1, -2.0, 2.0));
    Probe::new("rk4_decay", |x| id::rk4_decay(x[0], x[1], 8))
        .grad(|x| {
            let (v, g) = id::rk4_decay_grad(x[0], x[1], 8);
            (v, vec![g.0, g.1])
        })
        .jvp(|x, t| id::rk4_decay_jvp(x[0], x[1], 8, (t[0], t[1])))
        .hessian(|x| {
            let (v, g, h) = id::rk4_decay_hessian(x[0], x[1], 8);
            (v, vec![g.0, g.1], h)
        })
        .run(POINTS, range(2, -2.0, 2.0));
    // f32: against central differences taken in f64 of the same formula.
    let mut rng = Lcg::new(99);
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-1.5, 1.5) as f32, rng.uniform(-1.5, 1.5) as f32);
        let (v, (gx, gy)) = id::single_grad(x, y);
        assert_eq!(v, id::single(x, y));
        let (xd, yd) = (x as f64, y as f64);
        assert_near(
            gx as f64,
            yd * (xd * yd).cos() + xd,
            1e-5,
            0.0,
            "single_grad x",
        );
        assert_near(gy as f64, xd * (xd * yd).cos(), 1e-5, 0.0, "single_grad y");
        let (_, _, h) = id::single_hessian(x, y);
        let s = (xd * yd).sin();
        assert_near(
            h[0][0] as f64,
            -yd * yd * s + 1.0,
            1e-4,
            0.0,
            "single_hessian xx",
        );
        assert_near(
            h[0][1] as f64,
            (xd * yd).cos() - xd * yd * s,
            1e-4,
            0.0,
            "single_hessian xy",
        );
        assert_near(h[1][1] as f64, -xd * xd * s, 1e-4, 0.0, "single_hessian yy");
    }
}

#[test]
fn idioms_slices_and_iterators() {
    two_slices!(
        "sq_dist",
        id::sq_dist,
        id::sq_dist_grad,
        id::sq_dist_jvp,
        id::sq_dist_grad_into,
        id::sq_dist_hessian,
        4
    )
    .analytic(|x| {
        let d: Vec<f64> = (0..4).map(|i| 2.0 * (x[i] - x[i + 4])).collect();
        [d.clone(), d.iter().map(|v| -v).collect()].concat()
    })
    .run(POINTS, range(8, -2.0, 2.0));
    two_slices!(
        "range_map_dot",
        id::range_map_dot,
        id::range_map_dot_grad,
        id::range_map_dot_jvp,
        id::range_map_dot_grad_into,
        id::range_map_dot_hessian,
        3
    )
    .run(POINTS, range(6, -1.0, 1.0));
    two_slices!(
        "path_length",
        id::path_length,
        id::path_length_grad,
        id::path_length_jvp,
        id::path_length_grad_into,
        id::path_length_hessian,
        4
    )
    .run(POINTS, range(8, -2.0, 2.0));
    slice_scalar!(
        "polyval",
        id::polyval,
        id::polyval_grad,
        id::polyval_jvp,
        id::polyval_grad_into,
        id::polyval_hessian
    )
    .analytic(|x| {
        let (c, t) = (&x[..4], x[4]);
        vec![
            t.powi(3),
            t * t,
            t,
            1.0,
            3.0 * c[0] * t * t + 2.0 * c[1] * t + c[2],
        ]
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice_scalar!(
        "closures",
        id::closures,
        id::closures_grad,
        id::closures_jvp,
        id::closures_grad_into,
        id::closures_hessian
    )
    .analytic(|x| {
        let n = x.len() - 1;
        let a = x[n];
        let mut g: Vec<f64> = x[..n].iter().map(|v| 2.0 * a * a * v).collect();
        g.push(x[..n].iter().map(|v| 2.0 * a * v * v).sum::<f64>() + n as f64);
        g
    })
    .run(POINTS, range(4, -2.0, 2.0));
    slice(
        "enumerate_product",
        id::enumerate_product,
        id::enumerate_product_grad,
        id::enumerate_product_jvp,
        id::enumerate_product_grad_into,
    )
    .hessian(hess_slice(id::enumerate_product_hessian))
    .run(POINTS, range(4, -1.5, 1.5));
    slice(
        "logsumexp",
        id::logsumexp,
        id::logsumexp_grad,
        id::logsumexp_jvp,
        id::logsumexp_grad_into,
    )
    .hessian(hess_slice(id::logsumexp_hessian))
    .analytic(|x| {
        let s: f64 = x.iter().map(|v| v.exp()).sum();
        x.iter().map(|v| v.exp() / s).collect()
    })
    .run(POINTS, range(5, -3.0, 3.0));
    for label in 0..3 {
        Probe::new("cross_entropy", move |x| id::cross_entropy(x, label))
            .grad(move |x| id::cross_entropy_grad(x, label))
            .jvp(move |x, t| id::cross_entropy_jvp(x, label, t.to_vec()))
            .hessian(move |x| id::cross_entropy_hessian(x, label))
            .analytic(move |x| {
                let s: f64 = x.iter().map(|v| v.exp()).sum();
                let mut g: Vec<f64> = x.iter().map(|v| v.exp() / s).collect();
                g[label] -= 1.0;
                g
            })
            .run(POINTS, range(3, -3.0, 3.0));
    }
    slice(
        "window_sums",
        id::window_sums,
        id::window_sums_grad,
        id::window_sums_jvp,
        id::window_sums_grad_into,
    )
    .hessian(hess_slice(id::window_sums_hessian))
    .run(POINTS, range(6, -2.0, 2.0));
    slice(
        "cumsum_weighted",
        id::cumsum_weighted,
        id::cumsum_weighted_grad,
        id::cumsum_weighted_jvp,
        id::cumsum_weighted_grad_into,
    )
    .hessian(hess_slice(id::cumsum_weighted_hessian))
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "rosenbrock",
        id::rosenbrock::<f64>,
        id::rosenbrock_grad::<f64>,
        id::rosenbrock_jvp::<f64>,
        id::rosenbrock_grad_into::<f64>,
    )
    .hessian(hess_slice(id::rosenbrock_hessian::<f64>))
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() - 1 {
            let a = x[i + 1] - x[i] * x[i];
            g[i] += -400.0 * a * x[i] - 2.0 * (1.0 - x[i]);
            g[i + 1] += 200.0 * a;
        }
        g
    })
    .run(POINTS, range(4, -1.5, 1.5));
    let x32 = [0.5f32, -0.25, 1.5];
    let (v, g) = id::rosenbrock_grad(&x32);
    assert_eq!(v, id::rosenbrock(&x32));
    let x64: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
    let (_, g64) = id::rosenbrock_grad(&x64);
    for i in 0..3 {
        assert_near(g[i] as f64, g64[i], 1e-5, 0.0, "rosenbrock at f32");
    }
    // Softmax: a Vec result, its vjp against central differences of the cotangent's inner product.
    let mut rng = Lcg::new(5);
    for _ in 0..POINTS {
        let x = rng.vec(4, -2.0, 2.0);
        let c = rng.vec(4, -1.0, 1.0);
        let scalar = |y: &[f64]| {
            id::softmax(y)
                .iter()
                .zip(&c)
                .map(|(a, b)| a * b)
                .sum::<f64>()
        };
        let (value, g) = id::softmax_vjp(&x, c.clone());
        assert_eq!(value, id::softmax(&x));
        assert_vec_near(&g, &fd_gradient(&scalar, &x), 1e-6, "softmax_vjp");
        let t = rng.vec(4, -1.0, 1.0);
        let (_, dot) = id::softmax_jvp(&x, t.clone());
        let jac = id::softmax_jacobian(&x);
        for i in 0..4 {
            let analytic_row: Vec<f64> = (0..4)
                .map(|j| value[i] * (if i == j { 1.0 } else { 0.0 } - value[j]))
                .collect();
            assert_vec_near(&jac[i], &analytic_row, 1e-12, "softmax_jacobian");
            let expected: f64 = analytic_row.iter().zip(&t).map(|(a, b)| a * b).sum();
            assert_near(dot[i], expected, 1e-12, 1.0, "softmax_jvp");
        }
    }
}

fn matrix3(x: &[f64]) -> [[f64; 3]; 3] {
    [[x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]]]
}

#[test]
fn idioms_matrices() {
    let split = |x: &[f64]| (matrix3(&x[..9]), [x[9], x[10], x[11]]);
    Probe::new("quad_form", move |x| {
        let (a, v) = split(x);
        id::quad_form(a, v)
    })
    .grad(move |x| {
        let (a, v) = split(x);
        let (value, (ga, gv)) = id::quad_form_grad(a, v);
        (
            value,
            [
                ga.iter().flatten().copied().collect::<Vec<_>>(),
                gv.to_vec(),
            ]
            .concat(),
        )
    })
    .jvp(move |x, t| {
        let (a, v) = split(x);
        id::quad_form_jvp(a, v, split(t))
    })
    .grad_into(move |x| {
        let (a, v) = split(x);
        let (mut ga, mut gv) = ([[GARBAGE; 3]; 3], [GARBAGE; 3]);
        let value = id::quad_form_grad_into(a, v, (&mut ga, &mut gv));
        (
            value,
            [
                ga.iter().flatten().copied().collect::<Vec<_>>(),
                gv.to_vec(),
            ]
            .concat(),
        )
    })
    .hessian(move |x| {
        let (a, v) = split(x);
        let (value, (ga, gv), h) = id::quad_form_hessian(a, v);
        (
            value,
            [
                ga.iter().flatten().copied().collect::<Vec<_>>(),
                gv.to_vec(),
            ]
            .concat(),
            h,
        )
    })
    .analytic(|x| {
        let v = &x[9..];
        let mut g = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                g.push(v[i] * v[j]);
            }
        }
        for i in 0..3 {
            g.push((0..3).map(|j| (x[i * 3 + j] + x[j * 3 + i]) * v[j]).sum());
        }
        g
    })
    .run(POINTS, range(12, -1.5, 1.5));
    Probe::new("quad_form_ref", move |x| {
        let (a, v) = split(x);
        id::quad_form_ref(&a, &v)
    })
    .grad(move |x| {
        let (a, v) = split(x);
        let (value, (ga, gv)) = id::quad_form_ref_grad(&a, &v);
        (
            value,
            [
                ga.iter().flatten().copied().collect::<Vec<_>>(),
                gv.to_vec(),
            ]
            .concat(),
        )
    })
    .jvp(move |x, t| {
        let (a, v) = split(x);
        id::quad_form_ref_jvp(&a, &v, split(t))
    })
    .hessian(move |x| {
        let (a, v) = split(x);
        let (value, (ga, gv), h) = id::quad_form_ref_hessian(&a, &v);
        (
            value,
            [
                ga.iter().flatten().copied().collect::<Vec<_>>(),
                gv.to_vec(),
            ]
            .concat(),
            h,
        )
    })
    .run(POINTS, range(12, -1.5, 1.5));
    // A 2x3 times 3x2 product, A by value as Vec<Vec<f64>>.
    let ab = |x: &[f64]| (rows(&x[..6], 2, 3), rows(&x[6..], 3, 2));
    Probe::new("frob_product", move |x| {
        let (a, b) = ab(x);
        id::frob_product(a, &b)
    })
    .grad(move |x| {
        let (a, b) = ab(x);
        let (v, (ga, gb)) = id::frob_product_grad(a, &b);
        (v, [flatten(&ga), flatten(&gb)].concat())
    })
    .jvp(move |x, t| {
        let (a, b) = ab(x);
        id::frob_product_jvp(a, &b, ab(t))
    })
    .hessian(move |x| {
        let (a, b) = ab(x);
        let (v, (ga, gb), h) = id::frob_product_hessian(a, &b);
        (v, [flatten(&ga), flatten(&gb)].concat(), h)
    })
    .run(POINTS, range(12, -1.5, 1.5));
    Probe::new("array_pattern", |x| id::array_pattern([x[0], x[1], x[2]]))
        .grad(|x| {
            let (v, g) = id::array_pattern_grad([x[0], x[1], x[2]]);
            (v, g.to_vec())
        })
        .jvp(|x, t| id::array_pattern_jvp([x[0], x[1], x[2]], [t[0], t[1], t[2]]))
        .hessian(|x| {
            let (v, g, h) = id::array_pattern_hessian([x[0], x[1], x[2]]);
            (v, g.to_vec(), h)
        })
        .analytic(|x| {
            let (a, b, c) = (x[0], x[1], x[2]);
            let d = 1.0 + a * a;
            vec![b.exp() + 2.0 * a * c / (d * d), a * b.exp(), -1.0 / d]
        })
        .run(POINTS, range(3, -2.0, 2.0));
}

#[test]
fn jax_style_functions() {
    two(
        "sin_cos",
        jx::sin_cos,
        jx::sin_cos_grad,
        jx::sin_cos_jvp,
        jx::sin_cos_grad_into,
    )
    .hessian(hess2(jx::sin_cos_hessian))
    .analytic(|x| vec![x[0].cos() * x[1].cos(), -x[0].sin() * x[1].sin()])
    .run(POINTS, range(2, -3.0, 3.0));
    let away0 = |r: &mut Lcg| loop {
        let x = r.vec(1, -4.0, 4.0);
        if x[0].abs() > 0.05 {
            break x;
        }
    };
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    one(
        "softplus",
        jx::softplus,
        jx::softplus_grad,
        jx::softplus_jvp,
        jx::softplus_grad_into,
    )
    .hessian(hess1(jx::softplus_hessian, jx::softplus_derivatives))
    .analytic(move |x| vec![sigmoid(x[0])])
    .run(POINTS, away0);
    one(
        "gelu",
        jx::gelu,
        jx::gelu_grad,
        jx::gelu_jvp,
        jx::gelu_grad_into,
    )
    .hessian(hess1(jx::gelu_hessian, jx::gelu_derivatives))
    .run(POINTS, range(1, -4.0, 4.0));
    one(
        "silu",
        jx::silu,
        jx::silu_grad,
        jx::silu_jvp,
        jx::silu_grad_into,
    )
    .hessian(hess1(jx::silu_hessian, jx::silu_derivatives))
    .analytic(move |x| {
        let s = sigmoid(x[0]);
        vec![s + x[0] * s * (1.0 - s)]
    })
    .run(POINTS, range(1, -4.0, 4.0));
    one(
        "leaky_relu",
        jx::leaky_relu,
        jx::leaky_relu_grad,
        jx::leaky_relu_jvp,
        jx::leaky_relu_grad_into,
    )
    .hessian(hess1(jx::leaky_relu_hessian, jx::leaky_relu_derivatives))
    .analytic(|x| vec![if x[0] >= 0.0 { 1.0 } else { 0.01 }])
    .run(POINTS, away0);
    one(
        "cond",
        jx::cond,
        jx::cond_grad,
        jx::cond_jvp,
        jx::cond_grad_into,
    )
    .hessian(hess1(jx::cond_hessian, jx::cond_derivatives))
    .analytic(|x| vec![if x[0] < 3.0 { 2.0 * x[0] } else { -1.0 }])
    .run(POINTS, away_from(1, -5.0, 6.0, 100.0, 3.0));
    one(
        "sinc",
        jx::sinc,
        jx::sinc_grad,
        jx::sinc_jvp,
        jx::sinc_grad_into,
    )
    .hessian(hess1(jx::sinc_hessian, jx::sinc_derivatives))
    .run(POINTS, away0);
    assert_near(jx::sinc_grad(0.0).1, 0.0, 1e-14, 0.0, "sinc'(0)");
    assert_near(
        jx::sinc_derivatives(0.0)[2],
        -std::f64::consts::PI.powi(2) / 3.0,
        1e-12,
        0.0,
        "sinc''(0)",
    );
    two("elu", jx::elu, jx::elu_grad, jx::elu_jvp, jx::elu_grad_into)
        .hessian(hess2(jx::elu_hessian))
        .analytic(|x| {
            if x[0] > 0.0 {
                vec![1.0, 0.0]
            } else {
                vec![x[1] * x[0].exp(), x[0].exp_m1()]
            }
        })
        .run(POINTS, |r: &mut Lcg| {
            let x = away0(r);
            vec![x[0], r.uniform(0.5, 2.0)]
        });
    two(
        "xlogy",
        jx::xlogy,
        jx::xlogy_grad,
        jx::xlogy_jvp,
        jx::xlogy_grad_into,
    )
    .hessian(hess2(jx::xlogy_hessian))
    .analytic(|x| vec![x[1].ln(), x[0] / x[1]])
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(-2.0, 2.0), r.uniform(0.2, 3.0)]
    });
    // JAX: xlogy(0, y) has gradient (log y, 0) through the `where`; here the branch is a constant.
    assert_eq!(jx::xlogy_grad(0.0, 2.0), (0.0, (0.0, 0.0)));
    two(
        "logaddexp",
        jx::logaddexp,
        jx::logaddexp_grad,
        jx::logaddexp_jvp,
        jx::logaddexp_grad_into,
    )
    .hessian(hess2(jx::logaddexp_hessian))
    .analytic(move |x| vec![sigmoid(x[0] - x[1]), sigmoid(x[1] - x[0])])
    .run(POINTS, range(2, -3.0, 3.0));
    // At a tie of the max, the gradient is still (1/2, 1/2): the max's two halves cancel in the sum.
    let (_, (ga, gb)) = jx::logaddexp_grad(0.7, 0.7);
    assert_near(ga, 0.5, 1e-15, 0.0, "logaddexp tie");
    assert_near(gb, 0.5, 1e-15, 0.0, "logaddexp tie");
    two(
        "polar_energy",
        jx::polar_energy,
        jx::polar_energy_grad,
        jx::polar_energy_jvp,
        jx::polar_energy_grad_into,
    )
    .hessian(hess2(jx::polar_energy_hessian))
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(2, -2.0, 2.0);
        // Away from the origin and from atan2's cut on the negative x axis.
        if x[0].hypot(x[1]) > 0.2 && !(x[0] < 0.0 && x[1].abs() < 0.05) {
            break x;
        }
    });
    for n in [0, 1, 6] {
        Probe::new("fori", move |x| jx::fori(x[0], n))
            .grad(move |x| {
                let (v, g) = jx::fori_grad(x[0], n);
                (v, vec![g])
            })
            .jvp(move |x, t| jx::fori_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, g, h) = jx::fori_hessian(x[0], n);
                (v, vec![g], h)
            })
            .run(POINTS, range(1, -3.0, 3.0));
    }
    // Huber: delta constant-valued but active.
    Probe::new("huber", |x| jx::huber(&x[..3], &x[3..6], x[6]))
        .grad(|x| {
            let (v, (a, b, c)) = jx::huber_grad(&x[..3], &x[3..6], x[6]);
            (v, [a, b, vec![c]].concat())
        })
        .jvp(|x, t| {
            jx::huber_jvp(
                &x[..3],
                &x[3..6],
                x[6],
                (t[..3].to_vec(), t[3..6].to_vec(), t[6]),
            )
        })
        .grad_into(|x| {
            let (mut a, mut b, mut c) = (vec![GARBAGE; 3], vec![GARBAGE; 3], GARBAGE);
            let v = jx::huber_grad_into(&x[..3], &x[3..6], x[6], (&mut a, &mut b, &mut c));
            (v, [a, b, vec![c]].concat())
        })
        .hessian(|x| {
            let (v, (a, b, c), h) = jx::huber_hessian(&x[..3], &x[3..6], x[6]);
            (v, [a, b, vec![c]].concat(), h)
        })
        .run(POINTS, |r: &mut Lcg| loop {
            let mut x = r.vec(6, -2.0, 2.0);
            x.push(r.uniform(0.5, 1.5));
            let ok = (0..3).all(|i| {
                let d = (x[i] - x[i + 3]).abs();
                (d - x[6]).abs() > 0.02 && d > 0.02
            });
            if ok {
                break x;
            }
        });
    slice(
        "norm_barrier",
        jx::norm_barrier,
        jx::norm_barrier_grad,
        jx::norm_barrier_jvp,
        jx::norm_barrier_grad_into,
    )
    .hessian(hess_slice(jx::norm_barrier_hessian))
    .analytic(|x| {
        let n = norm(x);
        x.iter().map(|v| v / n + 2.0 * v / (4.0 - n * n)).collect()
    })
    .run(POINTS, range(3, -1.0, 1.0));
    // The perceptron: wrt(w), data constant.
    let (xs, ys) = ([-1.0, -0.3, 0.4, 1.2], [0.5, -0.2, 0.1, 0.9]);
    let hidden = 3;
    Probe::new("mlp", move |w| jx::mlp(w, &xs, &ys, hidden))
        .grad(move |w| jx::mlp_grad(w, &xs, &ys, hidden))
        .jvp(move |w, t| jx::mlp_jvp(w, &xs, &ys, hidden, t.to_vec()))
        .grad_into(move |w| {
            let mut g = vec![GARBAGE; w.len()];
            let v = jx::mlp_grad_into(w, &xs, &ys, hidden, &mut g);
            (v, g)
        })
        .hessian(move |w| jx::mlp_hessian(w, &xs, &ys, hidden))
        .run(20, range(10, -1.0, 1.0));
}

#[test]
fn custom_gradients() {
    use customs as cu;
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
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
    .run(POINTS, range(1, -5.0, 5.0));
    // Finite where the naive formula's derivative overflows.
    assert_eq!(cu::log1pexp_grad(800.0).1, 1.0);
    slice_scalar!(
        "softplus_loss",
        cu::softplus_loss,
        cu::softplus_loss_grad,
        cu::softplus_loss_jvp,
        cu::softplus_loss_grad_into,
        cu::softplus_loss_hessian
    )
    .analytic(move |x| {
        let n = x.len() - 1;
        let w = x[n];
        let mut g: Vec<f64> = x[..n].iter().map(|v| w * sigmoid(w * v - 1.0)).collect();
        g.push(x[..n].iter().map(|v| v * sigmoid(w * v - 1.0)).sum());
        g
    })
    .run(POINTS, range(4, -2.0, 2.0));
    // The straight-through estimator: d/dx round(x) x = x + round(x) by the rule; the Hessian is 1.
    one(
        "quantised_square",
        cu::quantised_square,
        cu::quantised_square_grad,
        cu::quantised_square_jvp,
        cu::quantised_square_grad_into,
    )
    .hessian(hess1(
        cu::quantised_square_hessian,
        cu::quantised_square_derivatives,
    ))
    .analytic(|x| vec![x[0] + x[0].round()])
    .no_fd()
    .run(POINTS, away_from(1, -3.0, 3.0, 1.0, 0.5));
    assert_eq!(cu::st_round_grad(2.3), (2.0, 1.0));
    // The clipped cotangent: 5 flows back, 1 arrives.
    one(
        "clipped_scale",
        cu::clipped_scale,
        cu::clipped_scale_grad,
        cu::clipped_scale_jvp,
        cu::clipped_scale_grad_into,
    )
    .analytic(|_| vec![1.0])
    .no_fd()
    .no_jvp()
    .run(POINTS, range(1, -3.0, 3.0));
    // Forward mode takes the closure's cotangent for dy = 1 (API.md): 5 t, unclipped.
    assert_eq!(cu::clipped_scale_jvp(0.3, 0.5), (1.5, 2.5));
    slice(
        "clipped_in_loop",
        cu::clipped_in_loop,
        cu::clipped_in_loop_grad,
        cu::clipped_in_loop_jvp,
        cu::clipped_in_loop_grad_into,
    )
    .analytic(|x| {
        (0..x.len())
            .map(|i| 2.0 * x[i] * (i as f64 + 1.0).min(1.0))
            .collect()
    })
    .no_fd()
    .no_jvp()
    .run(POINTS, range(3, -2.0, 2.0));
    two(
        "ratio_sum",
        cu::ratio_sum,
        cu::ratio_sum_grad,
        cu::ratio_sum_jvp,
        cu::ratio_sum_grad_into,
    )
    .hessian(hess2(cu::ratio_sum_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        vec![1.0 / b - b * b / (a * a), -a / (b * b) + 2.0 * b / a]
    })
    .run(POINTS, |r: &mut Lcg| {
        vec![r.uniform(0.5, 2.0), r.uniform(0.5, 2.0)]
    });
}

#[test]
fn struct_methods() {
    let springs = |x: &[f64]| Springs {
        k: x[0],
        rest: vec![x[1], x[2]],
        anchor: [x[3], x[4]],
        count: 3,
    };
    let positions = [0.2, 1.1, 2.5];
    Probe::new("Springs::energy", move |x| springs(x).energy(&positions))
        .grad(move |x| {
            let (v, g) = springs(x).energy_grad(&positions);
            assert_eq!(g.count, 3, "a #[no_grad] field is copied");
            (v, g.to_flat())
        })
        .jvp(move |x, t| springs(x).energy_jvp(&positions, springs(t)))
        .hessian(move |x| {
            let (v, g, h) = springs(x).energy_hessian(&positions);
            (v, g.to_flat(), h)
        })
        .analytic(move |x| {
            let s = springs(x);
            let d0 = positions[0] - s.anchor[0];
            let d1 = positions[1] - positions[0] - s.rest[0];
            let d2 = positions[2] - positions[1] - s.rest[1];
            vec![
                0.5 * (d0 * d0 + d1 * d1 + d2 * d2),
                -s.k * d1,
                -s.k * d2,
                -s.k * d0,
                positions[2],
            ]
        })
        .run(POINTS, range(5, -1.0, 1.0));
    let fixed = springs(&[1.5, 0.8, 1.2, -0.3, 0.7]);
    let at = fixed.clone();
    Probe::new("Springs::energy_at", move |x| at.energy_at(x))
        .grad(|x| fixed.energy_at_grad(x))
        .jvp(|x, t| fixed.energy_at_jvp(x, t.to_vec()))
        .grad_into(|x| {
            let mut g = vec![GARBAGE; 3];
            let v = fixed.energy_at_grad_into(x, &mut g);
            (v, g)
        })
        .run(POINTS, range(3, -2.0, 2.0));
    Probe::new("springs_total", move |x| {
        springs_total(&springs(x), &positions)
    })
    .grad(move |x| {
        let (v, g) = springs_total_grad(&springs(x), &positions);
        (v, g.to_flat())
    })
    .hessian(move |x| {
        let (v, g, h) = springs_total_hessian(&springs(x), &positions);
        (v, g.to_flat(), h)
    })
    .run(POINTS, range(5, -1.0, 1.0));
}

#[test]
fn output_parameters() {
    use outputs as out;
    let mut rng = Lcg::new(11);
    for _ in 0..POINTS {
        let y = rng.vec(3, -2.0, 2.0);
        let p = rng.vec(3, 0.5, 3.0);
        let yp = [y.clone(), p.clone()].concat();
        let rhs = |z: &[f64]| {
            let mut d = [0.0; 3];
            out::lorenz(&z[..3], &z[3..], &mut d);
            d.to_vec()
        };
        // The Jacobian by central differences: columns over (y, p).
        let columns = fd_columns(&rhs, &yp);
        let mut buf = [GARBAGE; 3];
        let jac = out::lorenz_jacobian(&y, &p, &mut buf);
        assert_eq!(jac.len(), 3);
        for i in 0..3 {
            for j in 0..6 {
                assert_near(
                    jac[i][j],
                    columns[j][i],
                    1e-8,
                    1.0,
                    &format!("lorenz_jacobian[{i}][{j}]"),
                );
            }
        }
        // vjp: the cotangent times the Jacobian.
        let c = rng.vec(3, -1.0, 1.0);
        let mut d = [GARBAGE; 3];
        let (gy, gp) = out::lorenz_vjp(&y, &p, &mut d, &c);
        assert_eq!(d.to_vec(), rhs(&yp), "lorenz_vjp writes the output");
        let g = [gy, gp].concat();
        for j in 0..6 {
            let expected: f64 = (0..3).map(|i| c[i] * columns[j][i]).sum();
            assert_near(g[j], expected, 1e-8, 1.0, &format!("lorenz_vjp[{j}]"));
        }
        // jvp: the Jacobian times the tangent.
        let t = rng.vec(6, -1.0, 1.0);
        let mut d = [GARBAGE; 3];
        let mut dd = [GARBAGE; 3];
        out::lorenz_jvp(&y, &p, &mut d, (t[..3].to_vec(), t[3..].to_vec()), &mut dd);
        for i in 0..3 {
            let expected: f64 = (0..6).map(|j| columns[j][i] * t[j]).sum();
            assert_near(dd[i], expected, 1e-8, 1.0, &format!("lorenz_jvp[{i}]"));
        }

        // An output beside a returned float.
        let x = rng.vec(3, -2.0, 2.0);
        let mut r = [GARBAGE; 3];
        // The buffer is read after the loop writes it, so its incoming value counts as an input (the
        // macro cannot see that the loop writes every element); its gradient is zero.
        let (v, (g, g_incoming)) = out::residual_norm_grad(&x, &mut r);
        assert_eq!(
            g_incoming,
            vec![0.0; 3],
            "residual_norm_grad of the overwritten buffer"
        );
        let f = |z: &[f64]| {
            let mut r = [0.0; 3];
            out::residual_norm(z, &mut r)
        };
        assert_near(v, f(&x), 1e-14, 0.0, "residual_norm value");
        assert_vec_near(&g, &fd_gradient(&f, &x), 1e-6, "residual_norm_grad");
        let analytic: Vec<f64> = (0..3)
            .map(|i| 4.0 * x[i] * (x[i] * x[i] - (i as f64 + 1.0)))
            .collect();
        assert_vec_near(
            &g,
            &analytic,
            1e-10,
            "residual_norm_grad against the formula",
        );
        let (_, (gh, _), h) = out::residual_norm_hessian(&x, &mut r);
        assert_vec_near(&gh, &g, 1e-12, "residual_norm_hessian's gradient");
        assert_eq!(h.len(), 6);
        for i in 0..6 {
            for j in 0..6 {
                if i >= 3 || j >= 3 {
                    assert_eq!(
                        h[i][j], 0.0,
                        "residual_norm_hessian over the overwritten buffer"
                    );
                    continue;
                }
                let expected = if i == j {
                    12.0 * x[i] * x[i] - 4.0 * (i as f64 + 1.0)
                } else {
                    0.0
                };
                assert_near(h[i][j], expected, 1e-10, 1.0, "residual_norm_hessian");
            }
        }

        // An accumulator: acc_i ← acc_i (1 + sin x_i); its incoming value is an input.
        let acc0 = rng.vec(3, -2.0, 2.0);
        let c = rng.vec(3, -1.0, 1.0);
        let mut acc = acc0.clone();
        let (gx, gacc) = out::accumulate_vjp(&x, &mut acc, &c);
        for i in 0..3 {
            assert_near(
                acc[i],
                acc0[i] * (1.0 + x[i].sin()),
                1e-14,
                0.0,
                "accumulate's output",
            );
            assert_near(
                gx[i],
                c[i] * acc0[i] * x[i].cos(),
                1e-12,
                0.0,
                "accumulate_vjp x",
            );
            assert_near(
                gacc[i],
                c[i] * (1.0 + x[i].sin()),
                1e-12,
                0.0,
                "accumulate_vjp acc",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Harder shapes: destructuring assignment, copies of arrays, labelled loops, iterator adaptors.
// ---------------------------------------------------------------------------------------------------

pub mod harder {
    use autodiff::differentiable;

    /// A Fibonacci-like recurrence through a tuple (destructuring assignment `(p, q) = (..)` is a
    /// spanned error).
    #[differentiable(order = 2)]
    pub fn swap_recurrence(a: f64, b: f64, n: usize) -> f64 {
        let (mut p, mut q) = (a, b);
        for _ in 0..n {
            let (np, nq) = (q, p + 0.5 * q * p.sin());
            p = np;
            q = nq;
        }
        p * q
    }

    /// An array copied, then the original written: the copy keeps the old values.
    #[differentiable(order = 2)]
    pub fn array_copy_semantics(x: f64, y: f64) -> f64 {
        let mut a = [x, y, x * y];
        let b = a;
        a[0] = 5.0 * y;
        a[2] *= a[2];
        b[0] * a[0] + b[2] + a[2] * b[1]
    }

    /// An in-place recurrence on a local `Vec`.
    #[differentiable(order = 2)]
    pub fn in_place_recurrence(x: &[f64]) -> f64 {
        let mut v = vec![0.0; x.len()];
        v[0] = x[0];
        for i in 1..x.len() {
            v[i] = v[i - 1] * x[i] + x[i - 1];
            v[i - 1] *= 0.5;
        }
        v.iter().sum::<f64>()
    }

    /// `continue 'outer` and `break 'outer` from a nested loop.
    #[differentiable(order = 2)]
    pub fn labelled(x: &[f64], cap: f64) -> f64 {
        let mut s = 0.0;
        'outer: for i in 0..x.len() {
            for j in 0..x.len() {
                if j > i {
                    continue 'outer;
                }
                s += x[i] * x[j];
                if s > cap {
                    break 'outer;
                }
            }
        }
        s
    }

    /// Mean and variance with `len() as f64`.
    #[differentiable(order = 2)]
    pub fn variance(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    }

    /// `windows(2)` and `chunks(2)`.
    #[differentiable(order = 2)]
    pub fn windows_chunks(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for w in x.windows(2) {
            s += (w[1] - w[0]).powi(2);
        }
        for c in x.chunks(2) {
            s += c[0] * c[c.len() - 1];
        }
        s
    }

    /// `filter` on an active condition, `skip`, `take`, `rev`.
    #[differentiable(order = 2)]
    pub fn adaptors(x: &[f64]) -> f64 {
        let positive: f64 = x.iter().filter(|v| **v > 0.0).map(|v| v.sqrt()).sum();
        let mut middle = 0.0;
        for v in x.iter().skip(1).take(2) {
            middle += v * v;
        }
        let mut weighted = 0.0;
        for (i, v) in x.iter().rev().enumerate() {
            weighted += (i as f64 + 1.0) * v;
        }
        positive + middle + weighted
    }

    /// Two slices zipped, weighted by a local array through a counter (a zip of three, and
    /// `.zip(..).enumerate()`, are spanned errors).
    #[differentiable(order = 2)]
    pub fn zip3(a: &[f64], b: &[f64]) -> f64 {
        let c = [1.0, -2.0, 0.5];
        let mut s = 0.0;
        let mut i = 0;
        for (x, y) in a.iter().zip(b.iter()) {
            s += x * y * c[i];
            i += 1;
        }
        s
    }

    /// A value assigned in both branches of a branch inside a loop, read after a `break`.
    #[differentiable(order = 2)]
    pub fn branch_in_loop(x: f64, n: usize) -> f64 {
        let mut y = x;
        let mut last = 0.0;
        for i in 0..n {
            if y > 1.0 {
                last = y * 0.5;
                y = last.sin() + x;
            } else {
                last = y * y;
                y = y + last * 0.1 + i as f64 * 0.2;
            }
            if last > 10.0 {
                break;
            }
        }
        y * last
    }

    /// `powi` with an integer parameter, negative included.
    #[differentiable(order = 2)]
    pub fn powi_param(x: f64, k: i32) -> f64 {
        x.powi(k) + x.powi(-k) * 0.5
    }

    /// A tuple returned early from a loop, in a tuple-returning function.
    #[differentiable]
    pub fn first_above(x: &[f64], t: f64) -> (f64, f64) {
        for i in 0..x.len() {
            if x[i] > t {
                return (x[i] * t, i as f64);
            }
        }
        (t * t, -1.0)
    }

    /// The caller of the tuple function, destructuring it.
    #[differentiable(order = 2)]
    pub fn uses_first_above(x: &[f64], t: f64) -> f64 {
        let (v, i) = first_above(x, t);
        v * (i + 2.0)
    }

    /// A float local passed `&mut` to a helper that writes it.
    #[differentiable]
    pub fn bump(v: &mut f64, by: f64) {
        *v = *v * by + by;
    }

    #[differentiable]
    pub fn uses_bump(x: f64, y: f64) -> f64 {
        let mut s = x;
        bump(&mut s, y);
        bump(&mut s, x);
        s
    }
}

#[test]
fn harder_shapes() {
    use harder as hd;
    for n in [0, 1, 5] {
        Probe::new("swap_recurrence", move |x| {
            hd::swap_recurrence(x[0], x[1], n)
        })
        .grad(move |x| {
            let (v, g) = hd::swap_recurrence_grad(x[0], x[1], n);
            (v, vec![g.0, g.1])
        })
        .jvp(move |x, t| hd::swap_recurrence_jvp(x[0], x[1], n, (t[0], t[1])))
        .hessian(move |x| {
            let (v, g, h) = hd::swap_recurrence_hessian(x[0], x[1], n);
            (v, vec![g.0, g.1], h)
        })
        .run(POINTS, range(2, -1.0, 1.0));
    }
    two(
        "array_copy_semantics",
        hd::array_copy_semantics,
        hd::array_copy_semantics_grad,
        hd::array_copy_semantics_jvp,
        hd::array_copy_semantics_grad_into,
    )
    .hessian(hess2(hd::array_copy_semantics_hessian))
    .analytic(|x| {
        // b = [x, y, xy], a = [5y, y, x²y²]: 5 x y + x y + x² y³.
        let (a, b) = (x[0], x[1]);
        vec![
            5.0 * b + b + 2.0 * a * b * b * b,
            5.0 * a + a + 3.0 * a * a * b * b,
        ]
    })
    .run(POINTS, range(2, -2.0, 2.0));
    slice(
        "in_place_recurrence",
        hd::in_place_recurrence,
        hd::in_place_recurrence_grad,
        hd::in_place_recurrence_jvp,
        hd::in_place_recurrence_grad_into,
    )
    .hessian(hess_slice(hd::in_place_recurrence_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
    for cap in [1.0, 100.0] {
        slice_scalar!(
            "labelled",
            hd::labelled,
            hd::labelled_grad,
            hd::labelled_jvp,
            hd::labelled_grad_into,
            hd::labelled_hessian
        )
        .run(POINTS, move |r: &mut Lcg| loop {
            let mut x = r.vec(4, -1.5, 1.5);
            x.push(cap);
            // Away from the partial sums that cross the cap.
            let mut s = 0.0;
            let mut ok = true;
            'o: for i in 0..4 {
                for j in 0..=i {
                    s += x[i] * x[j];
                    ok &= (s - cap).abs() > 0.02;
                    if s > cap {
                        break 'o;
                    }
                }
            }
            if ok {
                break x;
            }
        });
    }
    slice(
        "variance",
        hd::variance,
        hd::variance_grad,
        hd::variance_jvp,
        hd::variance_grad_into,
    )
    .hessian(hess_slice(hd::variance_hessian))
    .analytic(|x| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        x.iter().map(|v| 2.0 * (v - m) / (n - 1.0)).collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    for n in [4, 5] {
        slice(
            "windows_chunks",
            hd::windows_chunks,
            hd::windows_chunks_grad,
            hd::windows_chunks_jvp,
            hd::windows_chunks_grad_into,
        )
        .hessian(hess_slice(hd::windows_chunks_hessian))
        .run(POINTS, range(n, -2.0, 2.0));
    }
    slice(
        "adaptors",
        hd::adaptors,
        hd::adaptors_grad,
        hd::adaptors_jvp,
        hd::adaptors_grad_into,
    )
    .hessian(hess_slice(hd::adaptors_hessian))
    .analytic(|x| {
        let n = x.len();
        (0..n)
            .map(|i| {
                let sqrt_part = if x[i] > 0.0 { 0.5 / x[i].sqrt() } else { 0.0 };
                let middle = if i == 1 || i == 2 { 2.0 * x[i] } else { 0.0 };
                sqrt_part + middle + (n - i) as f64
            })
            .collect()
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(5, -2.0, 2.0);
        if x.iter().all(|v| v.abs() > 0.05) {
            break x;
        }
    });
    two_slices!(
        "zip3",
        hd::zip3,
        hd::zip3_grad,
        hd::zip3_jvp,
        hd::zip3_grad_into,
        hd::zip3_hessian,
        3
    )
    .analytic(|x| {
        let c = [1.0, -2.0, 0.5];
        let mut g: Vec<f64> = (0..3).map(|i| x[i + 3] * c[i]).collect();
        g.extend((0..3).map(|i| x[i] * c[i]));
        g
    })
    .run(POINTS, range(6, -2.0, 2.0));
    for n in [0, 3, 8] {
        Probe::new("branch_in_loop", move |x| hd::branch_in_loop(x[0], n))
            .grad(move |x| {
                let (v, g) = hd::branch_in_loop_grad(x[0], n);
                (v, vec![g])
            })
            .jvp(move |x, t| hd::branch_in_loop_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, g, h) = hd::branch_in_loop_hessian(x[0], n);
                (v, vec![g], h)
            })
            .run(POINTS, move |r: &mut Lcg| loop {
                let a = r.uniform(-2.0, 3.0);
                let jump =
                    (hd::branch_in_loop(a - 1e-4, n) - hd::branch_in_loop(a + 1e-4, n)).abs();
                if jump < 0.05 {
                    break vec![a];
                }
            });
    }
    for k in [-3, 0, 2, 5] {
        Probe::new("powi_param", move |x| hd::powi_param(x[0], k))
            .grad(move |x| {
                let (v, g) = hd::powi_param_grad(x[0], k);
                (v, vec![g])
            })
            .jvp(move |x, t| hd::powi_param_jvp(x[0], k, t[0]))
            .hessian(move |x| {
                let (v, g, h) = hd::powi_param_hessian(x[0], k);
                (v, vec![g], h)
            })
            .analytic(move |x| {
                let (a, k) = (x[0], k as f64);
                vec![k * a.powf(k - 1.0) - 0.5 * k * a.powf(-k - 1.0)]
            })
            .run(POINTS, range(1, 0.5, 2.0));
    }
    slice_scalar!(
        "uses_first_above",
        hd::uses_first_above,
        hd::uses_first_above_grad,
        hd::uses_first_above_jvp,
        hd::uses_first_above_grad_into,
        hd::uses_first_above_hessian
    )
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(5, -2.0, 2.0);
        if x[..4].iter().all(|v| (v - x[4]).abs() > 0.05) {
            break x;
        }
    });
    let mut rng = Lcg::new(3);
    for _ in 0..POINTS {
        let x = rng.vec(3, -2.0, 2.0);
        let t = rng.uniform(-1.0, 1.0);
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let scalar = |z: &[f64]| {
            let (a, b) = hd::first_above(&z[..3], z[3]);
            c0 * a + c1 * b
        };
        let xt = [x.clone(), vec![t]].concat();
        if x.iter().any(|v| (v - t).abs() < 0.05) {
            continue;
        }
        let (value, (gx, gt)) = hd::first_above_vjp(&x, t, (c0, c1));
        assert_eq!(value, hd::first_above(&x, t));
        assert_vec_near(
            &[gx, vec![gt]].concat(),
            &fd_gradient(&scalar, &xt),
            1e-6,
            "first_above_vjp",
        );
    }
    two(
        "uses_bump",
        hd::uses_bump,
        hd::uses_bump_grad,
        hd::uses_bump_jvp,
        hd::uses_bump_grad_into,
    )
    .analytic(|x| {
        // s1 = x y + y, s2 = s1 x + x = x² y + x y + x.
        let (a, b) = (x[0], x[1]);
        vec![2.0 * a * b + b + 1.0, a * a + a]
    })
    .run(POINTS, range(2, -2.0, 2.0));
    let mut v = 2.0;
    hd::bump(&mut v, 3.0);
    assert_eq!(v, 9.0);
}

// ---------------------------------------------------------------------------------------------------
// JAX's conventions at non-differentiable points, and more forms: `to_vec`, `push`, `fold` to a
// minimum, mutual recursion, an array as the value of an `if`.
// ---------------------------------------------------------------------------------------------------

pub mod edges {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn relu(x: f64) -> f64 {
        x.max(0.0)
    }

    /// `|−x²|`: at 0 the sign bit of `-0.0` keeps the second derivative of `x²` (DESIGN.md §6).
    #[differentiable(order = 2)]
    pub fn abs_of_negative_square(x: f64) -> f64 {
        (-x * x).abs()
    }

    #[differentiable(order = 2)]
    pub fn abs_plain(x: f64) -> f64 {
        x.abs()
    }

    #[differentiable(order = 2)]
    pub fn square_by_powi(x: f64) -> f64 {
        x.powi(2)
    }

    #[differentiable(order = 2)]
    pub fn floor_times(x: f64) -> f64 {
        (x * 3.0).floor() * x + x.round() + x.signum() * x.trunc()
    }

    /// The minimum by `fold`.
    #[differentiable(order = 2)]
    pub fn fold_min(x: &[f64]) -> f64 {
        x.iter().fold(f64::INFINITY, |a, &b| a.min(b)) * 2.0
    }

    /// A copy by `to_vec`, written.
    #[differentiable(order = 2)]
    pub fn to_vec_written(x: &[f64]) -> f64 {
        let mut y = x.to_vec();
        y[0] += y[1] * y[2];
        y[2] = y[0].sin();
        y.iter().map(|v| v * v).sum::<f64>()
    }

    /// A `Vec` built by `push`.
    #[differentiable(order = 2)]
    pub fn pushed(x: &[f64]) -> f64 {
        let mut v = Vec::new();
        for i in 0..x.len() {
            v.push(x[i] * x[(i + 1) % x.len()]);
        }
        let mut s = 0.0;
        for i in 0..v.len() {
            s += v[i].tanh();
        }
        s
    }

    /// Horner from the right: `rev` then `fold`.
    #[differentiable(order = 2)]
    pub fn rev_fold(c: &[f64], t: f64) -> f64 {
        c.iter().rev().fold(0.0, |acc, &ci| acc * t + ci)
    }

    /// Mutual recursion.
    #[differentiable(order = 2)]
    pub fn even_part(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * odd_part(x, n - 1)
        }
    }

    #[differentiable(order = 2)]
    pub fn odd_part(x: f64, n: u32) -> f64 {
        if n == 0 {
            x
        } else {
            (x * 0.5).cos() * even_part(x, n - 1)
        }
    }

    /// An array as the value of an `if`.
    #[differentiable]
    pub fn pick_pair(x: f64, y: f64) -> [f64; 2] {
        let p = if x > y { [x * y, x] } else { [y, x - y] };
        [p[0].exp(), p[1] * p[0]]
    }

    /// A closure calling a closure, both capturing active values, inside a loop.
    #[differentiable(order = 2)]
    pub fn nested_closures(x: &[f64], a: f64, b: f64) -> f64 {
        let inner = |v: f64| (v * a).sin();
        let outer = |v: f64| inner(v) * b + v;
        let mut s = 0.0;
        for &v in x {
            s += outer(v);
        }
        s
    }
}

#[test]
fn non_differentiable_points_and_more_forms() {
    use edges as ed;
    // JAX: a tie of max gives half to each side; abs at +0 gives 1, at -0 -1; powi(2) at 0 gives 0.
    assert_eq!(ed::relu_grad(0.0), (0.0, 0.5));
    assert_eq!(ed::relu_grad(-1.0), (0.0, 0.0));
    assert_eq!(ed::relu_grad(2.0), (2.0, 1.0));
    assert_eq!(ed::abs_plain_grad(0.0), (0.0, 1.0));
    assert_eq!(ed::abs_plain_grad(-0.0), (0.0, -1.0));
    assert_eq!(ed::square_by_powi_derivatives(0.0), [0.0, 0.0, 2.0]);
    assert_eq!(ed::abs_of_negative_square_derivatives(0.0), [0.0, 0.0, 2.0]);
    assert_eq!(ed::abs_plain_derivatives(0.0), [0.0, 1.0, 0.0]);
    one(
        "relu",
        ed::relu,
        ed::relu_grad,
        ed::relu_jvp,
        ed::relu_grad_into,
    )
    .hessian(hess1(ed::relu_hessian, ed::relu_derivatives))
    .analytic(|x| vec![if x[0] > 0.0 { 1.0 } else { 0.0 }])
    .run(POINTS, away_from(1, -2.0, 2.0, 100.0, 0.0));
    one(
        "abs_of_negative_square",
        ed::abs_of_negative_square,
        ed::abs_of_negative_square_grad,
        ed::abs_of_negative_square_jvp,
        ed::abs_of_negative_square_grad_into,
    )
    .hessian(hess1(
        ed::abs_of_negative_square_hessian,
        ed::abs_of_negative_square_derivatives,
    ))
    .analytic(|x| vec![2.0 * x[0]])
    .run(POINTS, range(1, -2.0, 2.0));
    one(
        "floor_times",
        ed::floor_times,
        ed::floor_times_grad,
        ed::floor_times_jvp,
        ed::floor_times_grad_into,
    )
    .hessian(hess1(ed::floor_times_hessian, ed::floor_times_derivatives))
    .analytic(|x| vec![(x[0] * 3.0).floor()])
    .run(POINTS, away_from(1, -2.0, 2.0, 1.0 / 6.0, 0.0));
    slice(
        "fold_min",
        ed::fold_min,
        ed::fold_min_grad,
        ed::fold_min_jvp,
        ed::fold_min_grad_into,
    )
    .hessian(hess_slice(ed::fold_min_hessian))
    .analytic(|x| {
        let m = x.iter().cloned().fold(f64::INFINITY, f64::min);
        x.iter().map(|&v| if v == m { 2.0 } else { 0.0 }).collect()
    })
    .run(POINTS, |r: &mut Lcg| loop {
        let x = r.vec(4, -2.0, 2.0);
        let mut sorted = x.clone();
        sorted.sort_by(f64::total_cmp);
        if sorted[1] - sorted[0] > 0.02 {
            break x;
        }
    });
    slice(
        "to_vec_written",
        ed::to_vec_written,
        ed::to_vec_written_grad,
        ed::to_vec_written_jvp,
        ed::to_vec_written_grad_into,
    )
    .hessian(hess_slice(ed::to_vec_written_hessian))
    .run(POINTS, range(4, -1.5, 1.5));
    slice(
        "pushed",
        ed::pushed,
        ed::pushed_grad,
        ed::pushed_jvp,
        ed::pushed_grad_into,
    )
    .hessian(hess_slice(ed::pushed_hessian))
    .run(POINTS, range(4, -1.5, 1.5));
    slice_scalar!(
        "rev_fold",
        ed::rev_fold,
        ed::rev_fold_grad,
        ed::rev_fold_jvp,
        ed::rev_fold_grad_into,
        ed::rev_fold_hessian
    )
    .analytic(|x| {
        // From the right: ((c3 t + c2) t + c1) t + c0.
        let (c, t) = (&x[..4], x[4]);
        vec![
            1.0,
            t,
            t * t,
            t.powi(3),
            c[1] + 2.0 * c[2] * t + 3.0 * c[3] * t * t,
        ]
    })
    .run(POINTS, range(5, -2.0, 2.0));
    for n in [0, 1, 4, 5] {
        Probe::new("even_part", move |x| ed::even_part(x[0], n))
            .grad(move |x| {
                let (v, g) = ed::even_part_grad(x[0], n);
                (v, vec![g])
            })
            .jvp(move |x, t| ed::even_part_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, g, h) = ed::even_part_hessian(x[0], n);
                (v, vec![g], h)
            })
            .run(POINTS, range(1, -2.0, 2.0));
    }
    let mut rng = Lcg::new(21);
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        if (x - y).abs() < 0.05 {
            continue;
        }
        let c = rng.vec(2, -1.0, 1.0);
        let scalar = |z: &[f64]| {
            let p = ed::pick_pair(z[0], z[1]);
            c[0] * p[0] + c[1] * p[1]
        };
        let (value, g) = ed::pick_pair_vjp(x, y, [c[0], c[1]]);
        assert_eq!(value, ed::pick_pair(x, y));
        assert_vec_near(
            &[g.0, g.1],
            &fd_gradient(&scalar, &[x, y]),
            1e-6,
            "pick_pair_vjp",
        );
        let jac = ed::pick_pair_jacobian(x, y);
        let columns = fd_columns(&|z: &[f64]| ed::pick_pair(z[0], z[1]).to_vec(), &[x, y]);
        for i in 0..2 {
            for j in 0..2 {
                assert_near(jac[i][j], columns[j][i], 1e-7, 1.0, "pick_pair_jacobian");
            }
        }
    }
    Probe::new("nested_closures", |x| {
        ed::nested_closures(&x[..3], x[3], x[4])
    })
    .grad(|x| {
        let (v, (g, ga, gb)) = ed::nested_closures_grad(&x[..3], x[3], x[4]);
        (v, [g, vec![ga, gb]].concat())
    })
    .jvp(|x, t| ed::nested_closures_jvp(&x[..3], x[3], x[4], (t[..3].to_vec(), t[3], t[4])))
    .hessian(|x| {
        let (v, (g, ga, gb), h) = ed::nested_closures_hessian(&x[..3], x[3], x[4]);
        (v, [g, vec![ga, gb]].concat(), h)
    })
    .analytic(|x| {
        let (a, b) = (x[3], x[4]);
        let mut g: Vec<f64> = x[..3].iter().map(|v| (v * a).cos() * a * b + 1.0).collect();
        g.push(x[..3].iter().map(|v| (v * a).cos() * v * b).sum());
        g.push(x[..3].iter().map(|v| (v * a).sin()).sum());
        g
    })
    .run(POINTS, range(5, -1.5, 1.5));
}
