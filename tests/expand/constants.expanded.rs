use autodiff::differentiable;
const WEIGHTS: [f64; 3] = [1.0, 2.0, 3.0];
const G: f64 = 9.81;
fn poly(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += WEIGHTS[i] * x.powi(i as i32);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn poly_grad(x: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __poly_vjp_into(x, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn poly_grad_into(x: f64, grad: &mut f64) -> f64 {
    let __grad_x = grad;
    __poly_vjp_into(x, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __poly_vjp_into(x: f64, d_ret: f64, grad: &mut f64) -> f64 {
    ____poly_generic_vjp_into(x, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn poly_vjp(x: f64, d_ret: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __poly_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn poly_jvp(x: f64, tangent: f64) -> (f64, f64) {
    __poly_generic_jvp(x, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct poly {}
impl ::autodiff::__private::GenericCopy for poly {
    type Copy = __poly_generic;
    #[inline(always)]
    fn copy() -> __poly_generic {
        __poly_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for poly {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl poly {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, d_ret: f64) -> (f64, (f64,)) {
        let (value, gradient) = poly_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: f64, tangents: (f64,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        poly_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: f64,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>,),
    ) -> f64 {
        let (__slot_0,) = grads;
        let mut __buffer_0 = 0.0;
        let value = __poly_vjp_into(x, d_ret, &mut __buffer_0);
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
struct poly_grad {}
impl ::autodiff::__private::GenericCopy for poly_grad {
    type Copy = poly_grad;
    #[inline(always)]
    fn copy() -> poly_grad {
        poly_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl poly_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <poly as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S) -> (__S, __S) {
        Self::call(x)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct poly_vjp {}
impl ::autodiff::__private::GenericCopy for poly_vjp {
    type Copy = poly_vjp;
    #[inline(always)]
    fn copy() -> poly_vjp {
        poly_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl poly_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, d_ret: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <poly as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(x, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct poly_jvp {}
impl ::autodiff::__private::GenericCopy for poly_jvp {
    type Copy = poly_jvp;
    #[inline(always)]
    fn copy() -> poly_jvp {
        poly_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl poly_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, tangent: __S) -> (__S, __S) {
        let __tangent_0 = tangent;
        <poly as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(x, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __poly_generic<__S: ::autodiff::__private::Float>(x: __S) -> __S {
    use ::autodiff::__private::Float as _;
    let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for i in 0..3 {
        s = s
            + (::autodiff::__private::constant::<__S, _>(WEIGHTS[i])
                * x.powi(::autodiff::__private::to_int::<i32, _>(i)));
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____poly_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    d_ret: __S,
    grad: &mut __S,
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = 0.0 as f64;
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let mut __d_s_1 = d_ret;
    let mut __d_x = <__S as ::autodiff::__private::Zero>::zero();
    let mut s_1 = s;
    for __i in 0..3 {
        let __v1 = ::autodiff::__private::at(&WEIGHTS, __i);
        let __v2 = ::autodiff::__private::constant::<__S, _>(__v1);
        let __v3 = __i as i32;
        let __v4 = x.powi(__v3);
        let __v5 = __v2 * __v4;
        let s_2 = s_1 + __v5;
        let __d_v4 = __d_s_1 * __v2;
        let __d_x_1 = __d_x + __d_v4 * ::autodiff::__private::rules::powi(x, __v3);
        __d_x = __d_x_1;
        s_1 = s_2;
    }
    *__grad_x = __d_x;
    s_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __poly_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    d_ret: __S,
) -> (__S, __S) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____poly_generic_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __poly_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    tangent: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __dot_x = tangent;
    let __v0 = 0.0 as f64;
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let mut s_1 = s;
    let mut __dot_s_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i in 0..3 {
        let __v1 = ::autodiff::__private::at(&WEIGHTS, __i);
        let __v2 = ::autodiff::__private::constant::<__S, _>(__v1);
        let __v3 = __i as i32;
        let __v4 = x.powi(__v3);
        let __dot_v4 = ::autodiff::__private::rules::times(
            __dot_x,
            ::autodiff::__private::rules::powi(x, __v3),
        );
        let __v5 = __v2 * __v4;
        let __dot_v5 = __dot_v4 * __v2;
        let s_2 = s_1 + __v5;
        let __dot_s_2 = __dot_s_1 + __dot_v5;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __poly_generic {}
impl ::autodiff::__private::GenericCopy for __poly_generic {
    type Copy = __poly_generic;
    #[inline(always)]
    fn copy() -> __poly_generic {
        __poly_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __poly_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __poly_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S) -> __S {
        __poly_generic(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S) -> __S {
        __poly_generic(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        d_ret: __S,
    ) -> (__S, (__S,)) {
        let (value, gradient) = __poly_generic_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        tangents: (__S,),
    ) -> (__S, __S) {
        let (__tangent_0,) = tangents;
        __poly_generic_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>,),
    ) -> __S {
        let (__slot_0,) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____poly_generic_vjp_into(x, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
}
fn fall(t: f64, n: usize) -> f64 {
    let mut h = 100.0;
    h -= 0.5 * G * t * t;
    h * (n as f64).sqrt()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn fall_grad(t: f64, n: usize) -> (f64, f64) {
    let mut __grad_t = 0.0;
    let value = __fall_vjp_into(t, n, 1.0, &mut __grad_t);
    (value, __grad_t)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn fall_grad_into(t: f64, n: usize, grad: &mut f64) -> f64 {
    let __grad_t = grad;
    __fall_vjp_into(t, n, 1.0, __grad_t)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __fall_vjp_into(t: f64, n: usize, d_ret: f64, grad: &mut f64) -> f64 {
    let __grad_t = grad;
    let __v0 = 0.5 * G;
    let __v1 = __v0 * t;
    let __v2 = __v1 * t;
    let h = 100.0 - __v2;
    let __v3 = n as f64;
    let __v4 = __v3.sqrt();
    let __v5 = h * __v4;
    let __d_h = d_ret * __v4;
    let __d_v2 = -__d_h;
    let __d_v1 = __d_v2 * t;
    let __d_t = __d_v2 * __v1;
    let __d_t_1 = __d_t + __d_v1 * __v0;
    *__grad_t = __d_t_1;
    __v5
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn fall_vjp(t: f64, n: usize, d_ret: f64) -> (f64, f64) {
    let mut __grad_t = 0.0;
    let value = __fall_vjp_into(t, n, d_ret, &mut __grad_t);
    (value, __grad_t)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn fall_jvp(t: f64, n: usize, tangent: f64) -> (f64, f64) {
    let __dot_t = tangent;
    let __v0 = 0.5 * G;
    let __v1 = __v0 * t;
    let __dot_v1 = __dot_t * __v0;
    let __v2 = __v1 * t;
    let __dot_v2 = __dot_v1 * t + __dot_t * __v1;
    let h = 100.0 - __v2;
    let __dot_h = -__dot_v2;
    let __v3 = n as f64;
    let __v4 = __v3.sqrt();
    let __v5 = h * __v4;
    let __dot_v5 = __dot_h * __v4;
    (__v5, __dot_v5)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct fall {}
impl ::autodiff::__private::GenericCopy for fall {
    type Copy = __fall_generic;
    #[inline(always)]
    fn copy() -> __fall_generic {
        __fall_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for fall {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl fall {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, t: f64, n: usize, d_ret: f64) -> (f64, (f64, ())) {
        let (value, gradient) = fall_vjp(t, n, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    fn jvp(self, t: f64, n: usize, tangents: (f64, ())) -> (f64, f64) {
        let (__tangent_0, _) = tangents;
        fall_jvp(t, n, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        t: f64,
        n: usize,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ()),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let value = __fall_vjp_into(t, n, d_ret, &mut __buffer_0);
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
struct fall_grad {}
impl ::autodiff::__private::GenericCopy for fall_grad {
    type Copy = fall_grad;
    #[inline(always)]
    fn copy() -> fall_grad {
        fall_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl fall_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(t: __S, n: usize) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <fall as ::autodiff::__private::GenericCopy>::copy()
            .vjp(t, n, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, t: __S, n: usize) -> (__S, __S) {
        Self::call(t, n)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct fall_vjp {}
impl ::autodiff::__private::GenericCopy for fall_vjp {
    type Copy = fall_vjp;
    #[inline(always)]
    fn copy() -> fall_vjp {
        fall_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl fall_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        t: __S,
        n: usize,
        d_ret: __S,
    ) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <fall as ::autodiff::__private::GenericCopy>::copy()
            .vjp(t, n, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        n: usize,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(t, n, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct fall_jvp {}
impl ::autodiff::__private::GenericCopy for fall_jvp {
    type Copy = fall_jvp;
    #[inline(always)]
    fn copy() -> fall_jvp {
        fall_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl fall_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        t: __S,
        n: usize,
        tangent: __S,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <fall as ::autodiff::__private::GenericCopy>::copy().jvp(t, n, (__tangent_0, ()))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        n: usize,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(t, n, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct fall_hvp {}
impl ::autodiff::__private::GenericCopy for fall_hvp {
    type Copy = fall_hvp;
    #[inline(always)]
    fn copy() -> fall_hvp {
        fall_hvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl fall_hvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        t: __S,
        n: usize,
        v: __S,
    ) -> (__S, __S, __S) {
        __fall_generic_hvp(t, n, v)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        n: usize,
        v: __S,
    ) -> (__S, __S, __S) {
        Self::call(t, n, v)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[::autodiff::differentiable(order = 2)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __fall_generic<__S: ::autodiff::__private::Float>(t: __S, n: usize) -> __S {
    use ::autodiff::__private::Float as _;
    let mut h = ::autodiff::__private::lit::<__S>(100.0 as f64);
    h = h
        - (::autodiff::__private::lit::<__S>(0.5 as f64)
            * ::autodiff::__private::constant::<__S, _>(G) * t * t);
    h * (::autodiff::__private::cast::<__S, _>(n)).sqrt()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn fall_hvp(t: f64, n: usize, v: f64) -> (f64, f64, f64) {
    __fall_generic_hvp(t, n, v)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn fall_hessian(t: f64, n: usize) -> (f64, f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    __fall_generic_hessian(t, n)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn fall_derivatives(t: f64, n: usize) -> [f64; 3usize] {
    __fall_generic_derivatives(t, n)
}
