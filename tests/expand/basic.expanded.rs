use autodiff::differentiable;
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn f_grad(x: f64, y: f64) -> (f64, (f64, f64)) {
    let mut __grad_x = 0.0;
    let mut __grad_y = 0.0;
    let value = __f_vjp_into(x, y, 1.0, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn f_grad_into(x: f64, y: f64, grad: (&mut f64, &mut f64)) -> f64 {
    let (__grad_x, __grad_y) = grad;
    __f_vjp_into(x, y, 1.0, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __f_vjp_into(x: f64, y: f64, d_ret: f64, grad: (&mut f64, &mut f64)) -> f64 {
    ____f_generic_vjp_into(x, y, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn f_vjp(x: f64, y: f64, d_ret: f64) -> (f64, (f64, f64)) {
    let mut __grad_x = 0.0;
    let mut __grad_y = 0.0;
    let value = __f_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn f_jvp(x: f64, y: f64, tangent: (f64, f64)) -> (f64, f64) {
    __f_generic_jvp(x, y, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct f {}
impl ::autodiff::__private::GenericCopy for f {
    type Copy = __f_generic;
    #[inline(always)]
    fn copy() -> __f_generic {
        __f_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for f {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl f {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, y: f64, d_ret: f64) -> (f64, (f64, f64)) {
        f_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp(self, x: f64, y: f64, tangents: (f64, f64)) -> (f64, f64) {
        f_jvp(x, y, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: f64,
        y: f64,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ::core::option::Option<&mut f64>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let mut __buffer_1 = 0.0;
        let value = __f_vjp_into(x, y, d_ret, (&mut __buffer_0, &mut __buffer_1));
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct f_grad {}
impl ::autodiff::__private::GenericCopy for f_grad {
    type Copy = f_grad;
    #[inline(always)]
    fn copy() -> f_grad {
        f_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl f_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, y: __S) -> (__S, (__S, __S)) {
        <f as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, y, <__S as ::autodiff::__private::One>::one())
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
    ) -> (__S, (__S, __S)) {
        Self::call(x, y)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct f_vjp {}
impl ::autodiff::__private::GenericCopy for f_vjp {
    type Copy = f_vjp;
    #[inline(always)]
    fn copy() -> f_vjp {
        f_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl f_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        y: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        <f as ::autodiff::__private::GenericCopy>::copy().vjp(x, y, d_ret)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        Self::call(x, y, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct f_jvp {}
impl ::autodiff::__private::GenericCopy for f_jvp {
    type Copy = f_jvp;
    #[inline(always)]
    fn copy() -> f_jvp {
        f_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl f_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        y: __S,
        tangent: (__S, __S),
    ) -> (__S, __S) {
        <f as ::autodiff::__private::GenericCopy>::copy().jvp(x, y, tangent)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
        tangent: (__S, __S),
    ) -> (__S, __S) {
        Self::call(x, y, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __f_generic<__S: ::autodiff::__private::Float>(x: __S, y: __S) -> __S {
    use ::autodiff::__private::Float as _;
    let z = x * y + x.sin();
    z.exp()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____f_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    y: __S,
    d_ret: __S,
    grad: (&mut __S, &mut __S),
) -> __S {
    let (__grad_x, __grad_y) = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = x * y;
    let __v1 = x.sin();
    let z = __v0 + __v1;
    let __v2 = z.exp();
    let __d_z = d_ret * __v2;
    let __d_x = __d_z * ::autodiff::__private::Float::cos(x);
    let __d_x_1 = __d_x + __d_z * y;
    let __d_y = __d_z * x;
    *__grad_x = __d_x_1;
    *__grad_y = __d_y;
    __v2
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __f_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    y: __S,
    d_ret: __S,
) -> (__S, (__S, __S)) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let mut __grad_y = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____f_generic_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __f_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    y: __S,
    tangent: (__S, __S),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let (__dot_x, __dot_y) = tangent;
    let __v0 = x * y;
    let __dot_v0 = __dot_x * y + __dot_y * x;
    let __v1 = x.sin();
    let __dot_v1 = __dot_x * ::autodiff::__private::Float::cos(x);
    let z = __v0 + __v1;
    let __dot_z = __dot_v0 + __dot_v1;
    let __v2 = z.exp();
    let __dot_v2 = ::autodiff::__private::rules::times(__dot_z, __v2);
    (__v2, __dot_v2)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __f_generic {}
impl ::autodiff::__private::GenericCopy for __f_generic {
    type Copy = __f_generic;
    #[inline(always)]
    fn copy() -> __f_generic {
        __f_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __f_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __f_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, y: __S) -> __S {
        __f_generic(x, y)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S, y: __S) -> __S {
        __f_generic(x, y)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        __f_generic_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
        tangents: (__S, __S),
    ) -> (__S, __S) {
        __f_generic_jvp(x, y, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        y: __S,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>, ::core::option::Option<&mut __S>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __buffer_1 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____f_generic_vjp_into(
            x,
            y,
            d_ret,
            (&mut __buffer_0, &mut __buffer_1),
        );
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
