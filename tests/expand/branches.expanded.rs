use autodiff::differentiable;
fn branchy(x: f64, k: i32) -> f64 {
    let mut y = x * x;
    if y > 1.0 {
        y = y.sqrt();
    }
    if k < 0 {
        return -y;
    }
    let w = match k {
        0 => y,
        1 | 2 => y * 2.0,
        _ => y.powi(k),
    };
    w + x
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn branchy_grad(x: f64, k: i32) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __branchy_vjp_into(x, k, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn branchy_grad_into(x: f64, k: i32, grad: &mut f64) -> f64 {
    let __grad_x = grad;
    __branchy_vjp_into(x, k, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __branchy_vjp_into(x: f64, k: i32, d_ret: f64, grad: &mut f64) -> f64 {
    ____branchy_generic_vjp_into(x, k, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn branchy_vjp(x: f64, k: i32, d_ret: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __branchy_vjp_into(x, k, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn branchy_jvp(x: f64, k: i32, tangent: f64) -> (f64, f64) {
    __branchy_generic_jvp(x, k, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct branchy {}
impl ::autodiff::__private::GenericCopy for branchy {
    type Copy = __branchy_generic;
    #[inline(always)]
    fn copy() -> __branchy_generic {
        __branchy_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for branchy {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl branchy {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, k: i32, d_ret: f64) -> (f64, (f64, ())) {
        let (value, gradient) = branchy_vjp(x, k, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    fn jvp(self, x: f64, k: i32, tangents: (f64, ())) -> (f64, f64) {
        let (__tangent_0, _) = tangents;
        branchy_jvp(x, k, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: f64,
        k: i32,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ()),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let value = __branchy_vjp_into(x, k, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct branchy_grad {}
impl ::autodiff::__private::GenericCopy for branchy_grad {
    type Copy = branchy_grad;
    #[inline(always)]
    fn copy() -> branchy_grad {
        branchy_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl branchy_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, k: i32) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <branchy as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, k, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S, k: i32) -> (__S, __S) {
        Self::call(x, k)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct branchy_vjp {}
impl ::autodiff::__private::GenericCopy for branchy_vjp {
    type Copy = branchy_vjp;
    #[inline(always)]
    fn copy() -> branchy_vjp {
        branchy_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl branchy_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        k: i32,
        d_ret: __S,
    ) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <branchy as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, k, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        k: i32,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(x, k, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct branchy_jvp {}
impl ::autodiff::__private::GenericCopy for branchy_jvp {
    type Copy = branchy_jvp;
    #[inline(always)]
    fn copy() -> branchy_jvp {
        branchy_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl branchy_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        k: i32,
        tangent: __S,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <branchy as ::autodiff::__private::GenericCopy>::copy()
            .jvp(x, k, (__tangent_0, ()))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        k: i32,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(x, k, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __branchy_generic<__S: ::autodiff::__private::Float>(x: __S, k: i32) -> __S {
    use ::autodiff::__private::Float as _;
    let mut y = x * x;
    if y > ::autodiff::__private::lit::<__S>(1.0 as f64) {
        y = y.sqrt();
    }
    if k < 0 {
        return -y;
    }
    let w = match k {
        0 => y,
        1 | 2 => y * ::autodiff::__private::lit::<__S>(2.0 as f64),
        _ => y.powi(k),
    };
    w + x
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____branchy_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    k: i32,
    d_ret: __S,
    grad: &mut __S,
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let y = x * x;
    let __v0 = 1.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = y > __v1;
    let y_2 = if __v2 { y.sqrt() } else { y };
    let __v3 = k < 0;
    let __v10 = if __v3 {
        -y_2
    } else {
        let w = match k {
            0 => y_2,
            1 | 2 => {
                let __v5 = 2.0 as f64;
                let __v6 = ::autodiff::__private::lit::<__S>(__v5);
                y_2 * __v6
            }
            _ => y_2.powi(k),
        };
        w + x
    };
    let (__d_x, __d_y_2_4) = if __v3 {
        let __d_y_2 = -d_ret;
        (<__S as ::autodiff::__private::Zero>::zero(), __d_y_2)
    } else {
        let __d_y_2_3 = match k {
            0 => d_ret,
            1 | 2 => {
                let __v5 = 2.0 as f64;
                let __v6 = ::autodiff::__private::lit::<__S>(__v5);
                d_ret * __v6
            }
            _ => d_ret * ::autodiff::__private::rules::powi(y_2, k),
        };
        (d_ret, __d_y_2_3)
    };
    let __d_y_1 = if __v2 {
        let y_1 = y.sqrt();
        ::autodiff::__private::rules::times(
            __d_y_2_4,
            ::autodiff::__private::rules::sqrt(y_1),
        )
    } else {
        __d_y_2_4
    };
    let __d_x_1 = __d_x + __d_y_1 * (x + x);
    *__grad_x = __d_x_1;
    __v10
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __branchy_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    k: i32,
    d_ret: __S,
) -> (__S, __S) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____branchy_generic_vjp_into(x, k, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __branchy_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    k: i32,
    tangent: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __dot_x = tangent;
    let y = x * x;
    let __dot_y = __dot_x * (x + x);
    let __v0 = 1.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = y > __v1;
    let (y_2, __dot_y_2) = if __v2 {
        let y_1 = y.sqrt();
        let __dot_y_1 = ::autodiff::__private::rules::times(
            __dot_y,
            ::autodiff::__private::rules::sqrt(y_1),
        );
        (y_1, __dot_y_1)
    } else {
        (y, __dot_y)
    };
    let __v3 = k < 0;
    let (__v10, __dot_v10) = if __v3 {
        let __v4 = -y_2;
        let __dot_v4 = -__dot_y_2;
        (__v4, __dot_v4)
    } else {
        let (w, __dot_w) = match k {
            0 => (y_2, __dot_y_2),
            1 | 2 => {
                let __v5 = 2.0 as f64;
                let __v6 = ::autodiff::__private::lit::<__S>(__v5);
                let __v7 = y_2 * __v6;
                let __dot_v7 = __dot_y_2 * __v6;
                (__v7, __dot_v7)
            }
            _ => {
                let __v8 = y_2.powi(k);
                let __dot_v8 = ::autodiff::__private::rules::times(
                    __dot_y_2,
                    ::autodiff::__private::rules::powi(y_2, k),
                );
                (__v8, __dot_v8)
            }
        };
        let __v9 = w + x;
        let __dot_v9 = __dot_w + __dot_x;
        (__v9, __dot_v9)
    };
    (__v10, __dot_v10)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __branchy_generic {}
impl ::autodiff::__private::GenericCopy for __branchy_generic {
    type Copy = __branchy_generic;
    #[inline(always)]
    fn copy() -> __branchy_generic {
        __branchy_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __branchy_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __branchy_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, k: i32) -> __S {
        __branchy_generic(x, k)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S, k: i32) -> __S {
        __branchy_generic(x, k)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        k: i32,
        d_ret: __S,
    ) -> (__S, (__S, ())) {
        let (value, gradient) = __branchy_generic_vjp(x, k, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        k: i32,
        tangents: (__S, ()),
    ) -> (__S, __S) {
        let (__tangent_0, _) = tangents;
        __branchy_generic_jvp(x, k, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        k: i32,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>, ()),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____branchy_generic_vjp_into(x, k, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
}
