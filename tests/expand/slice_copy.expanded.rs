use autodiff::differentiable;
fn placed(x: &[f64], y: &[f64]) -> f64 {
    let mut out = vec![0.0; 8];
    out[2..6].copy_from_slice(&x[1..5]);
    out[0..2].copy_from_slice(y);
    let mut s = 0.0;
    for i in 0..8 {
        s += out[i] * out[i] * (i as f64 + 1.0);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn placed_grad(
    x: &[f64],
    y: &[f64],
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = __placed_vjp_into(x, y, 1.0, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn placed_grad_into(x: &[f64], y: &[f64], grad: (&mut [f64], &mut [f64])) -> f64 {
    let (__grad_x, __grad_y) = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    ::autodiff::__private::clear(&mut __grad_y[..]);
    __placed_vjp_into(x, y, 1.0, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __placed_vjp_into(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
    grad: (&mut [f64], &mut [f64]),
) -> f64 {
    ____placed_generic_vjp_into(x, y, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn placed_vjp(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = __placed_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn placed_jvp(
    x: &[f64],
    y: &[f64],
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
) -> (f64, f64) {
    __placed_generic_jvp(x, y, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct placed {}
impl ::autodiff::__private::GenericCopy for placed {
    type Copy = __placed_generic;
    #[inline(always)]
    fn copy() -> __placed_generic {
        __placed_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for placed {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl placed {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        x: &[f64],
        y: &[f64],
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        placed_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        x: &[f64],
        y: &[f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        placed_jvp(x, y, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        x: &[f64],
        y: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
        ),
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = placed_vjp(x, y, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        x: &[f64],
        y: &[f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        placed_jvp(x, y, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: &[f64],
        y: &[f64],
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>, ::core::option::Option<&mut [f64]>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let value = if __slot_0.is_none() {
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                y.len(),
            );
            let value = __placed_vjp_into_without_x(x, y, d_ret, __buffer_1);
            value
        } else if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                x.len(),
            );
            let value = __placed_vjp_into_without_y(x, y, d_ret, __buffer_0);
            value
        } else {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                x.len(),
            );
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                y.len(),
            );
            let value = __placed_vjp_into(x, y, d_ret, (__buffer_0, __buffer_1));
            value
        };
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __placed_vjp_into_without_x(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
    grad: &mut [f64],
) -> f64 {
    let __grad_y = grad;
    let mut __d_y = ::autodiff::__private::gradient_buffer("y", __grad_y, &y);
    let mut out = ::std::vec![0.0; 8];
    let __v0 = out.len();
    let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
    let __slice_end_2 = 2 + __v1;
    let __v2 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
    let __v3 = __slice_end_2 - 2;
    let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
    let __copy_end_6 = 2 + __v4;
    for __i in 2..__copy_end_6 {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __v7 = x[__v6];
        out[__i] = __v7;
    }
    let __v8 = out.len();
    let __v9 = ::autodiff::__private::window_len(__v8, 0, 2);
    let __slice_end_8 = 0 + __v9;
    let __v10 = __slice_end_8 - 0;
    let __v11 = y.len();
    let __v12 = ::autodiff::__private::copy_len(__v10, __v11);
    let __copy_end_10 = 0 + __v12;
    for __i_1 in 0..__copy_end_10 {
        let __v13 = __i_1 - 0;
        let __v14 = y[__v13];
        out[__i_1] = __v14;
    }
    let mut __d_out = ::autodiff::__private::zeros_like(&out);
    let mut __d_s = d_ret;
    let mut s = 0.0;
    let __out_view: &[_] = &out[..8];
    for __i_2 in 0..8 {
        let __v15 = __out_view[__i_2];
        let __v16 = __v15 * __v15;
        let __v17 = __i_2 as f64;
        let __v18 = __v17 + 1.0;
        let __v19 = __v16 * __v18;
        let s_1 = s + __v19;
        let __d_v16 = __d_s * __v18;
        let __d_v15 = __d_v16 * (__v15 + __v15);
        ::autodiff::__private::add_to(&mut __d_out[__i_2], __d_v15);
        s = s_1;
    }
    for __i_1 in (0..__copy_end_10).rev() {
        let __v13 = __i_1 - 0;
        let __d_v14 = __d_out[__i_1];
        __d_out[__i_1] = ::autodiff::__private::Zero::zero();
        ::autodiff::__private::add_to(&mut __d_y[__v13], __d_v14);
    }
    for __i in (2..__copy_end_6).rev() {
        __d_out[__i] = ::autodiff::__private::Zero::zero();
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __placed_vjp_into_without_y(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
    grad: &mut [f64],
) -> f64 {
    let __grad_x = grad;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let mut out = ::std::vec![0.0; 8];
    let __v0 = out.len();
    let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
    let __slice_end_2 = 2 + __v1;
    let __v2 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
    let __v3 = __slice_end_2 - 2;
    let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
    let __copy_end_6 = 2 + __v4;
    for __i in 2..__copy_end_6 {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __v7 = x[__v6];
        out[__i] = __v7;
    }
    let __v8 = out.len();
    let __v9 = ::autodiff::__private::window_len(__v8, 0, 2);
    let __slice_end_8 = 0 + __v9;
    let __v10 = __slice_end_8 - 0;
    let __v11 = y.len();
    let __v12 = ::autodiff::__private::copy_len(__v10, __v11);
    let __copy_end_10 = 0 + __v12;
    for __i_1 in 0..__copy_end_10 {
        let __v13 = __i_1 - 0;
        let __v14 = y[__v13];
        out[__i_1] = __v14;
    }
    let mut __d_out = ::autodiff::__private::zeros_like(&out);
    let mut __d_s = d_ret;
    let mut s = 0.0;
    let __out_view: &[_] = &out[..8];
    for __i_2 in 0..8 {
        let __v15 = __out_view[__i_2];
        let __v16 = __v15 * __v15;
        let __v17 = __i_2 as f64;
        let __v18 = __v17 + 1.0;
        let __v19 = __v16 * __v18;
        let s_1 = s + __v19;
        let __d_v16 = __d_s * __v18;
        let __d_v15 = __d_v16 * (__v15 + __v15);
        ::autodiff::__private::add_to(&mut __d_out[__i_2], __d_v15);
        s = s_1;
    }
    for __i_1 in (0..__copy_end_10).rev() {
        __d_out[__i_1] = ::autodiff::__private::Zero::zero();
    }
    for __i in (2..__copy_end_6).rev() {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __d_v7 = __d_out[__i];
        __d_out[__i] = ::autodiff::__private::Zero::zero();
        ::autodiff::__private::add_to(&mut __d_x[__v6], __d_v7);
    }
    s
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct placed_grad {}
impl ::autodiff::__private::GenericCopy for placed_grad {
    type Copy = placed_grad;
    #[inline(always)]
    fn copy() -> placed_grad {
        placed_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl placed_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        <placed as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, y, <__S as ::autodiff::__private::One>::one())
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::call(x, y)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct placed_vjp {}
impl ::autodiff::__private::GenericCopy for placed_vjp {
    type Copy = placed_vjp;
    #[inline(always)]
    fn copy() -> placed_vjp {
        placed_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl placed_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        <placed as ::autodiff::__private::GenericCopy>::copy().vjp(x, y, d_ret)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::call(x, y, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct placed_jvp {}
impl ::autodiff::__private::GenericCopy for placed_jvp {
    type Copy = placed_jvp;
    #[inline(always)]
    fn copy() -> placed_jvp {
        placed_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl placed_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        <placed as ::autodiff::__private::GenericCopy>::copy().jvp(x, y, tangent)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        Self::call(x, y, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __placed_generic<__S: ::autodiff::__private::Float>(x: &[__S], y: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut out = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); 8];
    {
        let __slice_start_1 = 2;
        let __slice_end_2 = __slice_start_1
            + ::autodiff::__private::window_len(out.len(), __slice_start_1, 6);
        let __copy_from_4 = 1;
        let __copy_source_len_5 = ::autodiff::__private::window_len(
            x.len(),
            __copy_from_4,
            5,
        );
        let __copy_end_6 = __slice_start_1
            + ::autodiff::__private::copy_len(
                __slice_end_2 - __slice_start_1,
                __copy_source_len_5,
            );
        for __slice_write_3 in __slice_start_1..__copy_end_6 {
            out[__slice_write_3] = x[__copy_from_4
                + (__slice_write_3 - __slice_start_1)];
        }
    }
    {
        let __slice_start_7 = 0;
        let __slice_end_8 = __slice_start_7
            + ::autodiff::__private::window_len(out.len(), __slice_start_7, 2);
        let __copy_end_10 = __slice_start_7
            + ::autodiff::__private::copy_len(__slice_end_8 - __slice_start_7, y.len());
        for __slice_write_9 in __slice_start_7..__copy_end_10 {
            out[__slice_write_9] = y[__slice_write_9 - __slice_start_7];
        }
    }
    let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for i in 0..8 {
        s = s
            + (out[i] * out[i]
                * (::autodiff::__private::cast::<__S, _>(i)
                    + ::autodiff::__private::lit::<__S>(1.0 as f64)));
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____placed_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: &[__S],
    y: &[__S],
    d_ret: __S,
    grad: (&mut [__S], &mut [__S]),
) -> __S {
    let (__grad_x, __grad_y) = grad;
    use ::autodiff::__private::Float as _;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let mut __d_y = ::autodiff::__private::gradient_buffer("y", __grad_y, &y);
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let mut out = ::std::vec![__v1; 8];
    let __v2 = out.len();
    let __v3 = ::autodiff::__private::window_len(__v2, 2, 6);
    let __slice_end_2 = 2 + __v3;
    let __v4 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v4, 1, 5);
    let __v5 = __slice_end_2 - 2;
    let __v6 = ::autodiff::__private::copy_len(__v5, __copy_source_len_5);
    let __copy_end_6 = 2 + __v6;
    for __i in 2..__copy_end_6 {
        let __v7 = __i - 2;
        let __v8 = 1 + __v7;
        let __v9 = x[__v8];
        out[__i] = __v9;
    }
    let __v10 = out.len();
    let __v11 = ::autodiff::__private::window_len(__v10, 0, 2);
    let __slice_end_8 = 0 + __v11;
    let __v12 = __slice_end_8 - 0;
    let __v13 = y.len();
    let __v14 = ::autodiff::__private::copy_len(__v12, __v13);
    let __copy_end_10 = 0 + __v14;
    for __i_1 in 0..__copy_end_10 {
        let __v15 = __i_1 - 0;
        let __v16 = y[__v15];
        out[__i_1] = __v16;
    }
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let mut __d_out = ::autodiff::__private::zeros_like(&out);
    let mut __d_s_1 = d_ret;
    let mut s_1 = s;
    let __out_view: &[_] = &out[..8];
    for __i_2 in 0..8 {
        let __v17 = __out_view[__i_2];
        let __v18 = __v17 * __v17;
        let __v19 = ::autodiff::__private::cast::<__S, _>(__i_2);
        let __v20 = 1.0 as f64;
        let __v21 = ::autodiff::__private::lit::<__S>(__v20);
        let __v22 = __v19 + __v21;
        let __v23 = __v18 * __v22;
        let s_2 = s_1 + __v23;
        let __d_v18 = __d_s_1 * __v22;
        let __d_v17 = __d_v18 * (__v17 + __v17);
        ::autodiff::__private::add_to(&mut __d_out[__i_2], __d_v17);
        s_1 = s_2;
    }
    for __i_1 in (0..__copy_end_10).rev() {
        let __v15 = __i_1 - 0;
        let __d_v16 = __d_out[__i_1];
        __d_out[__i_1] = ::autodiff::__private::Zero::zero();
        ::autodiff::__private::add_to(&mut __d_y[__v15], __d_v16);
    }
    for __i in (2..__copy_end_6).rev() {
        let __v7 = __i - 2;
        let __v8 = 1 + __v7;
        let __d_v9 = __d_out[__i];
        __d_out[__i] = ::autodiff::__private::Zero::zero();
        ::autodiff::__private::add_to(&mut __d_x[__v8], __d_v9);
    }
    s_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __placed_generic_vjp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    y: &[__S],
    d_ret: __S,
) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = ____placed_generic_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __placed_generic_jvp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    y: &[__S],
    tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let (__dot_x, __dot_y) = tangent;
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut __dot_y = ::autodiff::__private::tangent("y", __dot_y, &y);
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let mut out = ::std::vec![__v1; 8];
    let mut __dot_out = ::autodiff::__private::zeros_like(&out);
    let __v2 = out.len();
    let __v3 = ::autodiff::__private::window_len(__v2, 2, 6);
    let __slice_end_2 = 2 + __v3;
    let __v4 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v4, 1, 5);
    let __v5 = __slice_end_2 - 2;
    let __v6 = ::autodiff::__private::copy_len(__v5, __copy_source_len_5);
    let __copy_end_6 = 2 + __v6;
    for __i in 2..__copy_end_6 {
        let __v7 = __i - 2;
        let __v8 = 1 + __v7;
        let __v9 = x[__v8];
        let __dot_v9 = __dot_x[__v8];
        out[__i] = __v9;
        __dot_out[__i] = __dot_v9;
    }
    let __v10 = out.len();
    let __v11 = ::autodiff::__private::window_len(__v10, 0, 2);
    let __slice_end_8 = 0 + __v11;
    let __v12 = __slice_end_8 - 0;
    let __v13 = y.len();
    let __v14 = ::autodiff::__private::copy_len(__v12, __v13);
    let __copy_end_10 = 0 + __v14;
    for __i_1 in 0..__copy_end_10 {
        let __v15 = __i_1 - 0;
        let __v16 = y[__v15];
        let __dot_v16 = __dot_y[__v15];
        out[__i_1] = __v16;
        __dot_out[__i_1] = __dot_v16;
    }
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let mut s_1 = s;
    let mut __dot_s_1 = <__S as ::autodiff::__private::Zero>::zero();
    let __out_view: &[_] = &out[..8];
    let __dot_out_view: &[_] = &__dot_out[..8];
    for __i_2 in 0..8 {
        let __v17 = __out_view[__i_2];
        let __dot_v17 = __dot_out_view[__i_2];
        let __v18 = __v17 * __v17;
        let __dot_v18 = __dot_v17 * (__v17 + __v17);
        let __v19 = ::autodiff::__private::cast::<__S, _>(__i_2);
        let __v20 = 1.0 as f64;
        let __v21 = ::autodiff::__private::lit::<__S>(__v20);
        let __v22 = __v19 + __v21;
        let __v23 = __v18 * __v22;
        let __dot_v23 = __dot_v18 * __v22;
        let s_2 = s_1 + __v23;
        let __dot_s_2 = __dot_s_1 + __dot_v23;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __placed_generic {}
impl ::autodiff::__private::GenericCopy for __placed_generic {
    type Copy = __placed_generic;
    #[inline(always)]
    fn copy() -> __placed_generic {
        __placed_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __placed_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __placed_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S], y: &[__S]) -> __S {
        __placed_generic(x, y)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: &[__S], y: &[__S]) -> __S {
        __placed_generic(x, y)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        __placed_generic_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        __placed_generic_jvp(x, y, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
        ),
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __placed_generic_vjp(x, y, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        __placed_generic_jvp(x, y, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        d_ret: __S,
        grads: (::core::option::Option<&mut [__S]>, ::core::option::Option<&mut [__S]>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let mut __scratch_1 = ::autodiff::__private::Scratch::new();
        let __buffer_1 = ::autodiff::__private::slot_or_scratch(
            __slot_1,
            &mut __scratch_1,
            y.len(),
        );
        let value = ____placed_generic_vjp_into(x, y, d_ret, (__buffer_0, __buffer_1));
        value
    }
}
fn into_output(x: &[f64], out: &mut [f64]) {
    out[2..6].copy_from_slice(&x[1..5]);
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __into_output_vjp_into(
    x: &[f64],
    out: &mut [f64],
    d_ret: (),
    d_out: ::core::option::Option<&[f64]>,
    grad: &mut [f64],
) -> () {
    let __grad_x = grad;
    let _ = d_ret;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let mut __d_out = ::autodiff::__private::output_cotangent("out", d_out, &out[..]);
    let __v0 = out.len();
    let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
    let __slice_end_2 = 2 + __v1;
    let __v2 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
    let __v3 = __slice_end_2 - 2;
    let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
    let __copy_end_6 = 2 + __v4;
    for __i in 2..__copy_end_6 {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __v7 = x[__v6];
        out[__i] = __v7;
    }
    for __i in (2..__copy_end_6).rev() {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __d_v7 = __d_out[__i];
        __d_out[__i] = ::autodiff::__private::Zero::zero();
        ::autodiff::__private::add_to(&mut __d_x[__v6], __d_v7);
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn into_output_vjp(x: &[f64], out: &mut [f64], d_out: &[f64]) -> ::std::vec::Vec<f64> {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    __into_output_vjp_into(
        x,
        out,
        (),
        ::core::option::Option::Some(&d_out[..]),
        &mut __grad_x,
    );
    __grad_x
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn into_output_jvp(
    x: &[f64],
    out: &mut [f64],
    tangent: ::std::vec::Vec<f64>,
    d_out: &mut [f64],
) -> () {
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let mut __dot_out = ::autodiff::__private::output_tangent("out", d_out, &out);
    ::autodiff::__private::clear(&mut __dot_out[..]);
    let __v0 = out.len();
    let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
    let __slice_end_2 = 2 + __v1;
    let __v2 = x.len();
    let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
    let __v3 = __slice_end_2 - 2;
    let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
    let __copy_end_6 = 2 + __v4;
    for __i in 2..__copy_end_6 {
        let __v5 = __i - 2;
        let __v6 = 1 + __v5;
        let __v7 = x[__v6];
        let __dot_v7 = __dot_x[__v6];
        out[__i] = __v7;
        __dot_out[__i] = __dot_v7;
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn into_output_jacobian(
    x: &[f64],
    out: &mut [f64],
) -> ::std::vec::Vec<::std::vec::Vec<f64>> {
    let __incoming = ::autodiff::__private::snapshot(&*out);
    let __value = ::autodiff::__private::snapshot(&*out);
    let __rows = __value.len();
    let __columns = 0usize + x.len();
    let mut __jacobian = ::std::vec::Vec::with_capacity(__rows);
    if __rows <= __columns {
        for __i in 0..__rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&__value);
            __d_ret[__i] = <f64 as ::autodiff::__private::One>::one();
            ::autodiff::__private::copy_into("out", &mut out[..], &__incoming[..]);
            let __part_0 = into_output_vjp(x, &mut *out, &__d_ret);
            let mut __row = ::std::vec::Vec::with_capacity(__columns);
            __row.extend_from_slice(&__part_0[..]);
            __jacobian.push(__row);
        }
    } else {
        __jacobian = ::std::vec![
            ::std::vec![< f64 as ::autodiff::__private::Zero > ::zero(); __columns];
            __rows
        ];
        for __j in 0..__columns {
            ::autodiff::__private::copy_into("out", &mut out[..], &__incoming[..]);
            let __tangent = {
                let mut __t = ::autodiff::__private::zeros_like(&x);
                if __j >= 0usize && __j < 0usize + x.len() {
                    __t[__j - 0usize] = <f64 as ::autodiff::__private::One>::one();
                }
                __t
            };
            let mut __column = ::autodiff::__private::zeros_like(&__value);
            into_output_jvp(x, &mut *out, __tangent, &mut __column);
            for (__i, __entry) in __column.iter().enumerate() {
                __jacobian[__i][__j] = *__entry;
            }
        }
    }
    __jacobian
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct into_output {}
impl ::autodiff::__private::GenericCopy for into_output {
    type Copy = __into_output_generic;
    #[inline(always)]
    fn copy() -> __into_output_generic {
        __into_output_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for into_output {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl into_output {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        x: &[f64],
        out: &mut [f64],
        d_ret: ::core::option::Option<()>,
        d_out: &[f64],
    ) -> ((), (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __into_output_generic::__vjp_all(
            x,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1))
    }
    #[inline]
    fn jvp(
        self,
        x: &[f64],
        out: &mut [f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_out: &mut [f64],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1) = tangents;
        {
            __into_output_generic::__jvp_all(x, out, (__tangent_0, __tangent_1), d_out);
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        x: &[f64],
        out: &mut [f64],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            ::autodiff::__private::Passed<&[f64]>,
        ),
    ) -> ((), (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1) = d_after;
        let d_out = __after_1.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __into_output_generic::__vjp_all(
            x,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                __gradient_1,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        x: &[f64],
        out: &mut [f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_after: (impl ::core::marker::Sized, ::autodiff::__private::Passed<&mut [f64]>),
    ) -> ((), ()) {
        let (__after_0, __after_1) = d_after;
        let d_out: &mut [f64] = ::core::convert::TryInto::try_into(__after_1.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1) = tangents;
        {
            __into_output_generic::__jvp_all(x, out, (__tangent_0, __tangent_1), d_out);
            ((), ())
        }
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __into_output_generic<__S: ::autodiff::__private::Float>(x: &[__S], out: &mut [__S]) {
    use ::autodiff::__private::Float as _;
    {
        let __slice_start_1 = 2;
        let __slice_end_2 = __slice_start_1
            + ::autodiff::__private::window_len(out.len(), __slice_start_1, 6);
        let __copy_from_4 = 1;
        let __copy_source_len_5 = ::autodiff::__private::window_len(
            x.len(),
            __copy_from_4,
            5,
        );
        let __copy_end_6 = __slice_start_1
            + ::autodiff::__private::copy_len(
                __slice_end_2 - __slice_start_1,
                __copy_source_len_5,
            );
        for __slice_write_3 in __slice_start_1..__copy_end_6 {
            out[__slice_write_3] = x[__copy_from_4
                + (__slice_write_3 - __slice_start_1)];
        }
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __into_output_generic {}
impl ::autodiff::__private::GenericCopy for __into_output_generic {
    type Copy = __into_output_generic;
    #[inline(always)]
    fn copy() -> __into_output_generic {
        __into_output_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __into_output_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __into_output_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        x: &[__S],
        out: &mut [__S],
        d_ret: (),
        d_out: ::core::option::Option<&[__S]>,
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        use ::autodiff::__private::Float as _;
        let _ = d_ret;
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let mut __d_out = ::autodiff::__private::output_cotangent(
            "out",
            d_out,
            &out[..],
        );
        let __v0 = out.len();
        let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
        let __slice_end_2 = 2 + __v1;
        let __v2 = x.len();
        let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
        let __v3 = __slice_end_2 - 2;
        let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
        let __copy_end_6 = 2 + __v4;
        for __i in 2..__copy_end_6 {
            let __v5 = __i - 2;
            let __v6 = 1 + __v5;
            let __v7 = x[__v6];
            out[__i] = __v7;
        }
        for __i in (2..__copy_end_6).rev() {
            let __v5 = __i - 2;
            let __v6 = 1 + __v5;
            let __d_v7 = __d_out[__i];
            __d_out[__i] = ::autodiff::__private::Zero::zero();
            ::autodiff::__private::add_to(&mut __d_x[__v6], __d_v7);
        }
        ((), (__d_x, __d_out))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        x: &[__S],
        out: &mut [__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_out: &mut [__S],
    ) -> () {
        use ::autodiff::__private::Float as _;
        let (__dot_x, __dot_out) = tangent;
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let mut __dot_out = ::autodiff::__private::tangent("out", __dot_out, &out);
        let mut __dot_out_1 = ::autodiff::__private::output_tangent("out", d_out, &out);
        ::autodiff::__private::copy_into("out", &mut __dot_out_1[..], &__dot_out[..]);
        let __v0 = out.len();
        let __v1 = ::autodiff::__private::window_len(__v0, 2, 6);
        let __slice_end_2 = 2 + __v1;
        let __v2 = x.len();
        let __copy_source_len_5 = ::autodiff::__private::window_len(__v2, 1, 5);
        let __v3 = __slice_end_2 - 2;
        let __v4 = ::autodiff::__private::copy_len(__v3, __copy_source_len_5);
        let __copy_end_6 = 2 + __v4;
        for __i in 2..__copy_end_6 {
            let __v5 = __i - 2;
            let __v6 = 1 + __v5;
            let __v7 = x[__v6];
            let __dot_v7 = __dot_x[__v6];
            out[__i] = __v7;
            __dot_out_1[__i] = __dot_v7;
        }
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S], out: &mut [__S]) -> () {
        __into_output_generic(x, out)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        out: &mut [__S],
    ) -> () {
        __into_output_generic(x, out)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        out: &mut [__S],
        d_ret: ::core::option::Option<()>,
        d_out: &[__S],
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            x,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        out: &mut [__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_out: &mut [__S],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1) = tangents;
        {
            Self::__jvp_all(x, out, (__tangent_0, __tangent_1), d_out);
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        out: &mut [__S],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            ::autodiff::__private::Passed<&[__S]>,
        ),
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1) = d_after;
        let d_out = __after_1.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            x,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                __gradient_1,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        out: &mut [__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_after: (impl ::core::marker::Sized, ::autodiff::__private::Passed<&mut [__S]>),
    ) -> ((), ()) {
        let (__after_0, __after_1) = d_after;
        let d_out: &mut [__S] = ::core::convert::TryInto::try_into(__after_1.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1) = tangents;
        {
            Self::__jvp_all(x, out, (__tangent_0, __tangent_1), d_out);
            ((), ())
        }
    }
}
