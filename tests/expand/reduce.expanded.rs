use autodiff::differentiable;
fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    m + x.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logsumexp_grad(x: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __logsumexp_vjp_into(x, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logsumexp_grad_into(x: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    __logsumexp_vjp_into(x, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __logsumexp_vjp_into(x: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    ____logsumexp_generic_vjp_into(x, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logsumexp_vjp(x: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __logsumexp_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logsumexp_jvp(x: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    __logsumexp_generic_jvp(x, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logsumexp {}
impl ::autodiff::__private::GenericCopy for logsumexp {
    type Copy = __logsumexp_generic;
    #[inline(always)]
    fn copy() -> __logsumexp_generic {
        __logsumexp_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for logsumexp {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl logsumexp {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: &[f64], d_ret: f64) -> (f64, (::std::vec::Vec<f64>,)) {
        let (value, gradient) = logsumexp_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: &[f64], tangents: (::std::vec::Vec<f64>,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        logsumexp_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        x: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,),
    ) -> (f64, (::std::vec::Vec<f64>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = logsumexp_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        x: &[f64],
        tangents: (::std::vec::Vec<f64>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (f64, f64) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        logsumexp_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: &[f64],
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>,),
    ) -> f64 {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = __logsumexp_vjp_into(x, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logsumexp_grad {}
impl ::autodiff::__private::GenericCopy for logsumexp_grad {
    type Copy = logsumexp_grad;
    #[inline(always)]
    fn copy() -> logsumexp_grad {
        logsumexp_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(x)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logsumexp_vjp {}
impl ::autodiff::__private::GenericCopy for logsumexp_vjp {
    type Copy = logsumexp_vjp;
    #[inline(always)]
    fn copy() -> logsumexp_vjp {
        logsumexp_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(x, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logsumexp_jvp {}
impl ::autodiff::__private::GenericCopy for logsumexp_jvp {
    type Copy = logsumexp_jvp;
    #[inline(always)]
    fn copy() -> logsumexp_jvp {
        logsumexp_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <logsumexp as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        Self::call(x, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logsumexp_generic<__S: ::autodiff::__private::Float>(x: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let m = {
        let mut __acc_1: __S = ::autodiff::__private::lit::<__S>(0.0 as f64);
        let mut __empty_2: bool = true;
        for &__element_4 in x.iter() {
            let __next_3 = __element_4;
            if __empty_2 {
                __acc_1 = __next_3;
                __empty_2 = false;
            } else {
                __acc_1 = __S::max(__acc_1, __next_3);
            }
        }
        {
            let mut __assertion = [0usize; 1];
            if __empty_2 {
                __assertion[0] = ::autodiff::__private::assertion_failed(
                    "called `Option::unwrap()` on a `None` value",
                );
            }
        }
        __acc_1
    };
    m
        + {
            let mut __acc_5 = ::autodiff::__private::lit::<__S>(0.0 as f64);
            for &v in x.iter() {
                __acc_5 = __acc_5 + ((v - m).exp());
            }
            __acc_5
        }
            .ln()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____logsumexp_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: __S,
    grad: &mut [__S],
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_acc_1_1 = ::autodiff::__private::Tape::new();
    let mut __tape_empty_2 = ::autodiff::__private::Tape::new();
    let mut __tape_v7 = ::autodiff::__private::Tape::new();
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = 0.0 as f64;
    let __acc_1: __S = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut __acc_1_1 = __acc_1;
    let mut __empty_2 = true;
    __tape_acc_1_1.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
    __tape_empty_2.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
    for __i in 0..__v1 {
        __tape_acc_1_1.push(__acc_1_1);
        __tape_empty_2.push(__empty_2);
        let __v2 = x[__i];
        let (__acc_1_3, __empty_2_1) = if __empty_2 {
            (__v2, false)
        } else {
            let __acc_1_2 = __S::max(__acc_1_1, __v2);
            (__acc_1_2, __empty_2)
        };
        (__acc_1_1, __empty_2) = (__acc_1_3, __empty_2_1);
    }
    let mut __assertion = [0usize; 1];
    if __empty_2 {
        let __v3 = ::autodiff::__private::assertion_failed(
            "called `Option::unwrap()` on a `None` value",
        );
        __assertion[0] = __v3;
    } else {};
    let __acc_5 = ::autodiff::__private::lit::<__S>(__v0);
    let __v4 = x.len();
    let mut __acc_5_1 = __acc_5;
    __tape_v7.reserve(::core::iter::Iterator::size_hint(&(0..__v4)).0);
    for __i_1 in 0..__v4 {
        let __v5 = x[__i_1];
        let __v6 = __v5 - __acc_1_1;
        let __v7 = __v6.exp();
        __tape_v7.push(__v7);
        let __acc_5_2 = __acc_5_1 + __v7;
        __acc_5_1 = __acc_5_2;
    }
    let __v8 = __acc_5_1.ln();
    let __v9 = __acc_1_1 + __v8;
    let mut __tape_acc_1_1 = __tape_acc_1_1.reader();
    let mut __tape_empty_2 = __tape_empty_2.reader();
    let mut __tape_v7 = __tape_v7.reader();
    let __d_acc_5_1 = d_ret / __acc_5_1;
    let mut __d_acc_5_1_1 = __d_acc_5_1;
    let mut __d_acc_1_1 = d_ret;
    for __i_1 in (0..__v4).rev() {
        let __v7 = __tape_v7.pop();
        let __d_v6 = __d_acc_5_1_1 * __v7;
        let __d_acc_1_1_1 = __d_acc_1_1 - __d_v6;
        ::autodiff::__private::add_to(&mut __d_x[__i_1], __d_v6);
        __d_acc_1_1 = __d_acc_1_1_1;
    }
    let mut __d_acc_1_1_2 = __d_acc_1_1;
    for __i in (0..__v1).rev() {
        let __acc_1_1 = __tape_acc_1_1.pop();
        let __empty_2 = __tape_empty_2.pop();
        let __v2 = x[__i];
        let (__d_acc_1_1_4, __d_v2_1) = if __empty_2 {
            (<__S as ::autodiff::__private::Zero>::zero(), __d_acc_1_1_2)
        } else {
            let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                __acc_1_1,
                __v2,
            );
            let __d_acc_1_1_3 = __d_acc_1_1_2 * __partial_max;
            let __d_v2 = __d_acc_1_1_2 * __partial_max_1;
            (__d_acc_1_1_3, __d_v2)
        };
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2_1);
        __d_acc_1_1_2 = __d_acc_1_1_4;
    }
    __v9
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logsumexp_generic_vjp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: __S,
) -> (__S, ::std::vec::Vec<__S>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = ____logsumexp_generic_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logsumexp_generic_jvp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    tangent: ::std::vec::Vec<__S>,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let __v0 = 0.0 as f64;
    let __acc_1: __S = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut __acc_1_1 = __acc_1;
    let mut __empty_2 = true;
    let mut __dot_acc_1_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i in 0..__v1 {
        let __v2 = x[__i];
        let __dot_v2 = __dot_x[__i];
        let (__acc_1_3, __empty_2_1, __dot_acc_1_3) = if __empty_2 {
            (__v2, false, __dot_v2)
        } else {
            let __acc_1_2 = __S::max(__acc_1_1, __v2);
            let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                __acc_1_1,
                __v2,
            );
            let __dot_acc_1_2 = __dot_acc_1_1 * __partial_max
                + __dot_v2 * __partial_max_1;
            (__acc_1_2, __empty_2, __dot_acc_1_2)
        };
        (__acc_1_1, __dot_acc_1_1, __empty_2) = (__acc_1_3, __dot_acc_1_3, __empty_2_1);
    }
    let mut __assertion = [0usize; 1];
    if __empty_2 {
        let __v3 = ::autodiff::__private::assertion_failed(
            "called `Option::unwrap()` on a `None` value",
        );
        __assertion[0] = __v3;
    } else {};
    let __acc_5 = ::autodiff::__private::lit::<__S>(__v0);
    let __v4 = x.len();
    let mut __acc_5_1 = __acc_5;
    let mut __dot_acc_5_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i_1 in 0..__v4 {
        let __v5 = x[__i_1];
        let __dot_v5 = __dot_x[__i_1];
        let __v6 = __v5 - __acc_1_1;
        let __dot_v6 = __dot_v5 - __dot_acc_1_1;
        let __v7 = __v6.exp();
        let __dot_v7 = ::autodiff::__private::rules::times(__dot_v6, __v7);
        let __acc_5_2 = __acc_5_1 + __v7;
        let __dot_acc_5_2 = __dot_acc_5_1 + __dot_v7;
        (__acc_5_1, __dot_acc_5_1) = (__acc_5_2, __dot_acc_5_2);
    }
    let __v8 = __acc_5_1.ln();
    let __dot_v8 = ::autodiff::__private::rules::over(__dot_acc_5_1, __acc_5_1);
    let __v9 = __acc_1_1 + __v8;
    let __dot_v9 = __dot_acc_1_1 + __dot_v8;
    (__v9, __dot_v9)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __logsumexp_generic {}
impl ::autodiff::__private::GenericCopy for __logsumexp_generic {
    type Copy = __logsumexp_generic;
    #[inline(always)]
    fn copy() -> __logsumexp_generic {
        __logsumexp_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __logsumexp_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __logsumexp_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S]) -> __S {
        __logsumexp_generic(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: &[__S]) -> __S {
        __logsumexp_generic(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>,)) {
        let (value, gradient) = __logsumexp_generic_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        tangents: (::std::vec::Vec<__S>,),
    ) -> (__S, __S) {
        let (__tangent_0,) = tangents;
        __logsumexp_generic_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,),
    ) -> (__S, (::std::vec::Vec<__S>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __logsumexp_generic_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        tangents: (::std::vec::Vec<__S>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (__S, __S) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        __logsumexp_generic_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: __S,
        grads: (::core::option::Option<&mut [__S]>,),
    ) -> __S {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = ____logsumexp_generic_vjp_into(x, d_ret, __buffer_0);
        value
    }
}
