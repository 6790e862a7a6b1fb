use autodiff::{differentiable, Float};
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn dot_grad(
    x: &[f64],
    y: &[f64],
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = __dot_vjp_into(x, y, 1.0, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn dot_grad_into(x: &[f64], y: &[f64], grad: (&mut [f64], &mut [f64])) -> f64 {
    let (__grad_x, __grad_y) = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    ::autodiff::__private::clear(&mut __grad_y[..]);
    __dot_vjp_into(x, y, 1.0, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __dot_vjp_into(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
    grad: (&mut [f64], &mut [f64]),
) -> f64 {
    ____dot_generic_vjp_into(x, y, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn dot_vjp(
    x: &[f64],
    y: &[f64],
    d_ret: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = __dot_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn dot_jvp(
    x: &[f64],
    y: &[f64],
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
) -> (f64, f64) {
    __dot_generic_jvp(x, y, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct dot {}
impl ::autodiff::__private::GenericCopy for dot {
    type Copy = __dot_generic;
    #[inline(always)]
    fn copy() -> __dot_generic {
        __dot_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for dot {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl dot {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        x: &[f64],
        y: &[f64],
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        dot_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        x: &[f64],
        y: &[f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        dot_jvp(x, y, tangents)
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
        let (value, gradient) = dot_vjp(x, y, d_ret);
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
        dot_jvp(x, y, (__tangent_0, __tangent_1))
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
            let value = __dot_vjp_into_without_x(x, y, d_ret, __buffer_1);
            value
        } else if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                x.len(),
            );
            let value = __dot_vjp_into_without_y(x, y, d_ret, __buffer_0);
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
            let value = __dot_vjp_into(x, y, d_ret, (__buffer_0, __buffer_1));
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
fn __dot_vjp_into_without_x(x: &[f64], y: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    let __grad_y = grad;
    let mut __d_y = ::autodiff::__private::gradient_buffer("y", __grad_y, &y);
    let __v0 = x.len();
    let mut __d_s = d_ret;
    let mut s = 0.0;
    let __y_view: &[_] = &y[..__v0];
    for __i in 0..__v0 {
        let __v1 = x[__i];
        let __v2 = __y_view[__i];
        let __v3 = __v1 * __v2;
        let s_1 = s + __v3;
        let __d_v2 = __d_s * __v1;
        ::autodiff::__private::add_to(&mut __d_y[__i], __d_v2);
        s = s_1;
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __dot_vjp_into_without_y(x: &[f64], y: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = x.len();
    let mut __d_s = d_ret;
    let mut s = 0.0;
    let __y_view: &[_] = &y[..__v0];
    for __i in 0..__v0 {
        let __v1 = x[__i];
        let __v2 = __y_view[__i];
        let __v3 = __v1 * __v2;
        let s_1 = s + __v3;
        let __d_v1 = __d_s * __v2;
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v1);
        s = s_1;
    }
    s
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct dot_grad {}
impl ::autodiff::__private::GenericCopy for dot_grad {
    type Copy = dot_grad;
    #[inline(always)]
    fn copy() -> dot_grad {
        dot_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl dot_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        <dot as ::autodiff::__private::GenericCopy>::copy()
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
struct dot_vjp {}
impl ::autodiff::__private::GenericCopy for dot_vjp {
    type Copy = dot_vjp;
    #[inline(always)]
    fn copy() -> dot_vjp {
        dot_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl dot_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        <dot as ::autodiff::__private::GenericCopy>::copy().vjp(x, y, d_ret)
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
struct dot_jvp {}
impl ::autodiff::__private::GenericCopy for dot_jvp {
    type Copy = dot_jvp;
    #[inline(always)]
    fn copy() -> dot_jvp {
        dot_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl dot_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        y: &[__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        <dot as ::autodiff::__private::GenericCopy>::copy().jvp(x, y, tangent)
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
fn __dot_generic<__S: ::autodiff::__private::Float>(x: &[__S], y: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for i in 0..x.len() {
        s = s + (x[i] * y[i]);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____dot_generic_vjp_into<__S: ::autodiff::__private::Float>(
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
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut __d_s_1 = d_ret;
    let mut s_1 = s;
    let __y_view: &[_] = &y[..__v1];
    for __i in 0..__v1 {
        let __v2 = x[__i];
        let __v3 = __y_view[__i];
        let __v4 = __v2 * __v3;
        let s_2 = s_1 + __v4;
        let __d_v2 = __d_s_1 * __v3;
        let __d_v3 = __d_s_1 * __v2;
        ::autodiff::__private::add_to(&mut __d_y[__i], __d_v3);
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2);
        s_1 = s_2;
    }
    s_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __dot_generic_vjp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    y: &[__S],
    d_ret: __S,
) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let value = ____dot_generic_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __dot_generic_jvp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    y: &[__S],
    tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let (__dot_x, __dot_y) = tangent;
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut __dot_y = ::autodiff::__private::tangent("y", __dot_y, &y);
    let __v0 = 0.0 as f64;
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut s_1 = s;
    let mut __dot_s_1 = <__S as ::autodiff::__private::Zero>::zero();
    let __y_view: &[_] = &y[..__v1];
    let __dot_y_view: &[_] = &__dot_y[..__v1];
    for __i in 0..__v1 {
        let __v2 = x[__i];
        let __dot_v2 = __dot_x[__i];
        let __v3 = __y_view[__i];
        let __dot_v3 = __dot_y_view[__i];
        let __v4 = __v2 * __v3;
        let __dot_v4 = __dot_v2 * __v3 + __dot_v3 * __v2;
        let s_2 = s_1 + __v4;
        let __dot_s_2 = __dot_s_1 + __dot_v4;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __dot_generic {}
impl ::autodiff::__private::GenericCopy for __dot_generic {
    type Copy = __dot_generic;
    #[inline(always)]
    fn copy() -> __dot_generic {
        __dot_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __dot_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __dot_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S], y: &[__S]) -> __S {
        __dot_generic(x, y)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: &[__S], y: &[__S]) -> __S {
        __dot_generic(x, y)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        __dot_generic_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        y: &[__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        __dot_generic_jvp(x, y, tangents)
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
        let (value, gradient) = __dot_generic_vjp(x, y, d_ret);
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
        __dot_generic_jvp(x, y, (__tangent_0, __tangent_1))
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
        let value = ____dot_generic_vjp_into(x, y, d_ret, (__buffer_0, __buffer_1));
        value
    }
}
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rosenbrock_grad<T: Float>(x: &[T]) -> (T, ::std::vec::Vec<T>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __rosenbrock_vjp_into(
        x,
        <T as ::autodiff::__private::One>::one(),
        &mut __grad_x,
    );
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rosenbrock_grad_into<T: Float>(x: &[T], grad: &mut [T]) -> T {
    let __grad_x = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    __rosenbrock_vjp_into(x, <T as ::autodiff::__private::One>::one(), __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __rosenbrock_vjp_into<T: Float>(x: &[T], d_ret: T, grad: &mut [T]) -> T {
    let __grad_x = grad;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = T::from(100.0);
    let hundred = __v0.unwrap();
    let s = T::zero();
    let __v1 = x.len();
    let __v2 = __v1 - 1;
    let mut __d_s_1 = d_ret;
    let mut __window_x_0 = <T as ::autodiff::__private::Zero>::zero();
    let mut __window_x_1 = <T as ::autodiff::__private::Zero>::zero();
    let mut s_1 = s;
    let __x_view: &[_] = &x[(if 0 < __v2 { 1 } else { 0 })..][..__v2];
    let __x_view_1: &[_] = &x[..__v2];
    for __i in 0..__v2 {
        let __v4 = __x_view[__i];
        let __v5 = __x_view_1[__i];
        let __v6 = __v5 * __v5;
        let a = __v4 - __v6;
        let __v7 = T::one();
        let b = __v7 - __v5;
        let __v8 = hundred * a;
        let __v9 = __v8 * a;
        let __v10 = s_1 + __v9;
        let __v11 = b * b;
        let s_2 = __v10 + __v11;
        let __d_b = __d_s_1 * (b + b);
        let __d_v8 = __d_s_1 * a;
        let __d_a = __d_s_1 * __v8;
        let __d_a_1 = __d_a + __d_v8 * hundred;
        let __d_v5 = -__d_b;
        let __d_v6 = -__d_a_1;
        let __d_v5_1 = __d_v5 + __d_v6 * (__v5 + __v5);
        ::autodiff::__private::add_to(&mut __window_x_0, __d_v5_1);
        ::autodiff::__private::add_to(&mut __window_x_1, __d_a_1);
        ::autodiff::__private::add_to(&mut __d_x[__i], __window_x_0);
        (__window_x_0, __window_x_1) = (
            __window_x_1,
            <T as ::autodiff::__private::Zero>::zero(),
        );
        s_1 = s_2;
    }
    if 0 < __v2 {
        ::autodiff::__private::add_to(&mut __d_x[__v2], __window_x_0);
    }
    s_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rosenbrock_vjp<T: Float>(x: &[T], d_ret: T) -> (T, ::std::vec::Vec<T>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __rosenbrock_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rosenbrock_jvp<T: Float>(x: &[T], tangent: ::std::vec::Vec<T>) -> (T, T) {
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let __v0 = T::from(100.0);
    let hundred = __v0.unwrap();
    let s = T::zero();
    let __v1 = x.len();
    let __v2 = __v1 - 1;
    let mut s_1 = s;
    let mut __dot_s_1 = <T as ::autodiff::__private::Zero>::zero();
    let __x_view: &[_] = &x[(if 0 < __v2 { 1 } else { 0 })..][..__v2];
    let __x_view_1: &[_] = &x[..__v2];
    let __dot_x_view: &[_] = &__dot_x[(if 0 < __v2 { 1 } else { 0 })..][..__v2];
    let __dot_x_view_1: &[_] = &__dot_x[..__v2];
    for __i in 0..__v2 {
        let __v3 = __i + 1;
        let __v4 = __x_view[__i];
        let __dot_v4 = __dot_x_view[__i];
        let __v5 = __x_view_1[__i];
        let __dot_v5 = __dot_x_view_1[__i];
        let __v6 = __v5 * __v5;
        let __dot_v6 = __dot_v5 * (__v5 + __v5);
        let a = __v4 - __v6;
        let __dot_a = __dot_v4 - __dot_v6;
        let __v7 = T::one();
        let b = __v7 - __v5;
        let __dot_b = -__dot_v5;
        let __v8 = hundred * a;
        let __dot_v8 = __dot_a * hundred;
        let __v9 = __v8 * a;
        let __dot_v9 = __dot_v8 * a + __dot_a * __v8;
        let __v10 = s_1 + __v9;
        let __dot_v10 = __dot_s_1 + __dot_v9;
        let __v11 = b * b;
        let __dot_v11 = __dot_b * (b + b);
        let s_2 = __v10 + __v11;
        let __dot_s_2 = __dot_v10 + __dot_v11;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rosenbrock {}
impl ::autodiff::__private::GenericCopy for rosenbrock {
    type Copy = rosenbrock;
    #[inline(always)]
    fn copy() -> rosenbrock {
        rosenbrock {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rosenbrock {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rosenbrock {
    #[inline]
    fn call<T: Float>(x: &[T]) -> T {
        rosenbrock(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<T: Float>(self, x: &[T]) -> T {
        rosenbrock(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<T: Float>(self, x: &[T], d_ret: T) -> (T, (::std::vec::Vec<T>,)) {
        let (value, gradient) = rosenbrock_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp<T: Float>(self, x: &[T], tangents: (::std::vec::Vec<T>,)) -> (T, T) {
        let (__tangent_0,) = tangents;
        rosenbrock_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<T: Float>(
        self,
        x: &[T],
        d_ret: ::core::option::Option<T>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<T>>,),
    ) -> (T, (::std::vec::Vec<T>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <T as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = rosenbrock_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<T: Float>(
        self,
        x: &[T],
        tangents: (::std::vec::Vec<T>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (T, T) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        rosenbrock_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<T: Float>(
        self,
        x: &[T],
        d_ret: T,
        grads: (::core::option::Option<&mut [T]>,),
    ) -> T {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = __rosenbrock_vjp_into(x, d_ret, __buffer_0);
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rosenbrock_grad {}
impl ::autodiff::__private::GenericCopy for rosenbrock_grad {
    type Copy = rosenbrock_grad;
    #[inline(always)]
    fn copy() -> rosenbrock_grad {
        rosenbrock_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rosenbrock_grad {
    #[inline]
    fn call<T: Float>(x: &[T]) -> (T, ::std::vec::Vec<T>) {
        let (__value, (__slot_0,)) = <rosenbrock as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, <T as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: &[T]) -> (T, ::std::vec::Vec<T>) {
        Self::call(x)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rosenbrock_vjp {}
impl ::autodiff::__private::GenericCopy for rosenbrock_vjp {
    type Copy = rosenbrock_vjp;
    #[inline(always)]
    fn copy() -> rosenbrock_vjp {
        rosenbrock_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rosenbrock_vjp {
    #[inline]
    fn call<T: Float>(x: &[T], d_ret: T) -> (T, ::std::vec::Vec<T>) {
        let (__value, (__slot_0,)) = <rosenbrock as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: &[T], d_ret: T) -> (T, ::std::vec::Vec<T>) {
        Self::call(x, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rosenbrock_jvp {}
impl ::autodiff::__private::GenericCopy for rosenbrock_jvp {
    type Copy = rosenbrock_jvp;
    #[inline(always)]
    fn copy() -> rosenbrock_jvp {
        rosenbrock_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rosenbrock_jvp {
    #[inline]
    fn call<T: Float>(x: &[T], tangent: ::std::vec::Vec<T>) -> (T, T) {
        let __tangent_0 = tangent;
        <rosenbrock as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: &[T], tangent: ::std::vec::Vec<T>) -> (T, T) {
        Self::call(x, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
fn product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for &v in x {
        p *= v;
    }
    p
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn product_grad(x: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __product_vjp_into(x, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn product_grad_into(x: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    __product_vjp_into(x, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __product_vjp_into(x: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    ____product_generic_vjp_into(x, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn product_vjp(x: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __product_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn product_jvp(x: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    __product_generic_jvp(x, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct product {}
impl ::autodiff::__private::GenericCopy for product {
    type Copy = __product_generic;
    #[inline(always)]
    fn copy() -> __product_generic {
        __product_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for product {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl product {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: &[f64], d_ret: f64) -> (f64, (::std::vec::Vec<f64>,)) {
        let (value, gradient) = product_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: &[f64], tangents: (::std::vec::Vec<f64>,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        product_jvp(x, __tangent_0)
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
        let (value, gradient) = product_vjp(x, d_ret);
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
        product_jvp(x, __tangent_0)
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
        let value = __product_vjp_into(x, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct product_grad {}
impl ::autodiff::__private::GenericCopy for product_grad {
    type Copy = product_grad;
    #[inline(always)]
    fn copy() -> product_grad {
        product_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl product_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <product as ::autodiff::__private::GenericCopy>::copy()
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
struct product_vjp {}
impl ::autodiff::__private::GenericCopy for product_vjp {
    type Copy = product_vjp;
    #[inline(always)]
    fn copy() -> product_vjp {
        product_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl product_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <product as ::autodiff::__private::GenericCopy>::copy()
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
struct product_jvp {}
impl ::autodiff::__private::GenericCopy for product_jvp {
    type Copy = product_jvp;
    #[inline(always)]
    fn copy() -> product_jvp {
        product_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl product_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <product as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
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
fn __product_generic<__S: ::autodiff::__private::Float>(x: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut p = ::autodiff::__private::lit::<__S>(1.0 as f64);
    for &v in x {
        p = p * v;
    }
    p
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____product_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: __S,
    grad: &mut [__S],
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_p_1 = ::autodiff::__private::Tape::new();
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = 1.0 as f64;
    let p = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut p_1 = p;
    __tape_p_1.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
    for __i in 0..__v1 {
        __tape_p_1.push(p_1);
        let __v2 = x[__i];
        let p_2 = p_1 * __v2;
        p_1 = p_2;
    }
    let mut __tape_p_1 = __tape_p_1.reader();
    let mut __d_p_1 = d_ret;
    for __i in (0..__v1).rev() {
        let p_1 = __tape_p_1.pop();
        let __v2 = x[__i];
        let __d_p_1_1 = __d_p_1 * __v2;
        let __d_v2 = __d_p_1 * p_1;
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2);
        __d_p_1 = __d_p_1_1;
    }
    p_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __product_generic_vjp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: __S,
) -> (__S, ::std::vec::Vec<__S>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = ____product_generic_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __product_generic_jvp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    tangent: ::std::vec::Vec<__S>,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let __v0 = 1.0 as f64;
    let p = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = x.len();
    let mut p_1 = p;
    let mut __dot_p_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i in 0..__v1 {
        let __v2 = x[__i];
        let __dot_v2 = __dot_x[__i];
        let p_2 = p_1 * __v2;
        let __dot_p_2 = __dot_p_1 * __v2 + __dot_v2 * p_1;
        (p_1, __dot_p_1) = (p_2, __dot_p_2);
    }
    (p_1, __dot_p_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __product_generic {}
impl ::autodiff::__private::GenericCopy for __product_generic {
    type Copy = __product_generic;
    #[inline(always)]
    fn copy() -> __product_generic {
        __product_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __product_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __product_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S]) -> __S {
        __product_generic(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: &[__S]) -> __S {
        __product_generic(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>,)) {
        let (value, gradient) = __product_generic_vjp(x, d_ret);
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
        __product_generic_jvp(x, __tangent_0)
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
        let (value, gradient) = __product_generic_vjp(x, d_ret);
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
        __product_generic_jvp(x, __tangent_0)
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
        let value = ____product_generic_vjp_into(x, d_ret, __buffer_0);
        value
    }
}
fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __squares_vjp_into(x: &[f64], d_ret: Vec<f64>, grad: &mut [f64]) -> Vec<f64> {
    ____squares_generic_vjp_into(x, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn squares_vjp(x: &[f64], d_ret: Vec<f64>) -> (Vec<f64>, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __squares_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn squares_jvp(x: &[f64], tangent: ::std::vec::Vec<f64>) -> (Vec<f64>, Vec<f64>) {
    __squares_generic_jvp(x, tangent)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn squares_jacobian(x: &[f64]) -> ::std::vec::Vec<::std::vec::Vec<f64>> {
    let __value = squares(x);
    let __rows = __value.len();
    let __columns = 0usize + x.len();
    let mut __jacobian = ::std::vec::Vec::with_capacity(__rows);
    if __rows <= __columns {
        for __i in 0..__rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&__value);
            __d_ret[__i] = <f64 as ::autodiff::__private::One>::one();
            let (_, __part_0) = squares_vjp(x, __d_ret);
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
            let (_, __column) = squares_jvp(
                x,
                {
                    let mut __t = ::autodiff::__private::zeros_like(&x);
                    if __j >= 0usize && __j < 0usize + x.len() {
                        __t[__j - 0usize] = <f64 as ::autodiff::__private::One>::one();
                    }
                    __t
                },
            );
            for (__i, __entry) in __column.iter().enumerate() {
                __jacobian[__i][__j] = *__entry;
            }
        }
    }
    __jacobian
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct squares {}
impl ::autodiff::__private::GenericCopy for squares {
    type Copy = __squares_generic;
    #[inline(always)]
    fn copy() -> __squares_generic {
        __squares_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for squares {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl squares {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: &[f64], d_ret: Vec<f64>) -> (Vec<f64>, (::std::vec::Vec<f64>,)) {
        let (value, gradient) = squares_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: &[f64], tangents: (::std::vec::Vec<f64>,)) -> (Vec<f64>, Vec<f64>) {
        let (__tangent_0,) = tangents;
        squares_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        x: &[f64],
        d_ret: ::core::option::Option<Vec<f64>>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,),
    ) -> (Vec<f64>, (::std::vec::Vec<f64>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {
                ::autodiff::__private::zeros_like(
                    &squares(::core::clone::Clone::clone(&x)),
                )
            }
        };
        let (value, gradient) = squares_vjp(x, d_ret);
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
    ) -> (Vec<f64>, Vec<f64>) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        squares_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: &[f64],
        d_ret: Vec<f64>,
        grads: (::core::option::Option<&mut [f64]>,),
    ) -> Vec<f64> {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = __squares_vjp_into(x, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct squares_vjp {}
impl ::autodiff::__private::GenericCopy for squares_vjp {
    type Copy = squares_vjp;
    #[inline(always)]
    fn copy() -> squares_vjp {
        squares_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl squares_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <squares as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, ::std::vec::Vec<__S>) {
        Self::call(x, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct squares_jvp {}
impl ::autodiff::__private::GenericCopy for squares_jvp {
    type Copy = squares_jvp;
    #[inline(always)]
    fn copy() -> squares_jvp {
        squares_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl squares_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (Vec<__S>, Vec<__S>) {
        let __tangent_0 = tangent;
        <squares as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (Vec<__S>, Vec<__S>) {
        Self::call(x, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __squares_generic<__S: ::autodiff::__private::Float>(x: &[__S]) -> Vec<__S> {
    use ::autodiff::__private::Float as _;
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____squares_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: Vec<__S>,
    grad: &mut [__S],
) -> Vec<__S> {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = x.len();
    let mut out = ::std::vec::Vec::with_capacity(__v0);
    for __i in 0..__v0 {
        let __v1 = x[__i];
        let __v2 = __v1 * __v1;
        out.push(__v2);
    }
    let mut __d_out = ::autodiff::__private::cotangent("d_ret", d_ret, &out);
    let mut __pushed_out = out.len();
    for __i in (0..__v0).rev() {
        let __v1 = x[__i];
        __pushed_out -= 1;
        let __d_v2 = __d_out[__pushed_out];
        let __d_v1 = __d_v2 * (__v1 + __v1);
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v1);
    }
    out
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __squares_generic_vjp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    d_ret: Vec<__S>,
) -> (Vec<__S>, ::std::vec::Vec<__S>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = ____squares_generic_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __squares_generic_jvp<__S: ::autodiff::__private::Float>(
    x: &[__S],
    tangent: ::std::vec::Vec<__S>,
) -> (Vec<__S>, Vec<__S>) {
    use ::autodiff::__private::Float as _;
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let __v0 = x.len();
    let mut out = ::std::vec::Vec::with_capacity(__v0);
    let mut __dot_out = ::std::clone::Clone::clone(&out);
    for __i in 0..__v0 {
        let __v1 = x[__i];
        let __dot_v1 = __dot_x[__i];
        let __v2 = __v1 * __v1;
        let __dot_v2 = __dot_v1 * (__v1 + __v1);
        let __v3 = out.len();
        out.push(__v2);
        __dot_out.push(__dot_v2);
    }
    (out, __dot_out)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __squares_generic {}
impl ::autodiff::__private::GenericCopy for __squares_generic {
    type Copy = __squares_generic;
    #[inline(always)]
    fn copy() -> __squares_generic {
        __squares_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __squares_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __squares_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: &[__S]) -> Vec<__S> {
        __squares_generic(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: &[__S]) -> Vec<__S> {
        __squares_generic(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, (::std::vec::Vec<__S>,)) {
        let (value, gradient) = __squares_generic_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        tangents: (::std::vec::Vec<__S>,),
    ) -> (Vec<__S>, Vec<__S>) {
        let (__tangent_0,) = tangents;
        __squares_generic_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: ::core::option::Option<Vec<__S>>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,),
    ) -> (Vec<__S>, (::std::vec::Vec<__S>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {
                ::autodiff::__private::zeros_like(
                    &__squares_generic(::core::clone::Clone::clone(&x)),
                )
            }
        };
        let (value, gradient) = __squares_generic_vjp(x, d_ret);
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
    ) -> (Vec<__S>, Vec<__S>) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        __squares_generic_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: &[__S],
        d_ret: Vec<__S>,
        grads: (::core::option::Option<&mut [__S]>,),
    ) -> Vec<__S> {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = ____squares_generic_vjp_into(x, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
