use autodiff::{differentiable, Float};
fn softplus_max<T: Float>(x: T, y: T) -> T {
    let one = T::one();
    (one + x.exp()).ln().max(y)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn softplus_max_grad<T: Float>(x: T, y: T) -> (T, (T, T)) {
    let mut __grad_x = <T as ::autodiff::__private::Zero>::zero();
    let mut __grad_y = <T as ::autodiff::__private::Zero>::zero();
    let value = __softplus_max_vjp_into(
        x,
        y,
        <T as ::autodiff::__private::One>::one(),
        (&mut __grad_x, &mut __grad_y),
    );
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn softplus_max_grad_into<T: Float>(x: T, y: T, grad: (&mut T, &mut T)) -> T {
    let (__grad_x, __grad_y) = grad;
    __softplus_max_vjp_into(
        x,
        y,
        <T as ::autodiff::__private::One>::one(),
        (__grad_x, __grad_y),
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __softplus_max_vjp_into<T: Float>(x: T, y: T, d_ret: T, grad: (&mut T, &mut T)) -> T {
    let (__grad_x, __grad_y) = grad;
    let one = T::one();
    let __v0 = x.exp();
    let __v1 = one + __v0;
    let __v2 = __v1.ln();
    let __v3 = __v2.max(y);
    let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(__v2, y);
    let __d_v2 = d_ret * __partial_max;
    let __d_y = d_ret * __partial_max_1;
    let __d_v1 = __d_v2 / __v1;
    let __d_x = __d_v1 * __v0;
    *__grad_x = __d_x;
    *__grad_y = __d_y;
    __v3
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn softplus_max_vjp<T: Float>(x: T, y: T, d_ret: T) -> (T, (T, T)) {
    let mut __grad_x = <T as ::autodiff::__private::Zero>::zero();
    let mut __grad_y = <T as ::autodiff::__private::Zero>::zero();
    let value = __softplus_max_vjp_into(x, y, d_ret, (&mut __grad_x, &mut __grad_y));
    (value, (__grad_x, __grad_y))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn softplus_max_jvp<T: Float>(x: T, y: T, tangent: (T, T)) -> (T, T) {
    let (__dot_x, __dot_y) = tangent;
    let one = T::one();
    let __v0 = x.exp();
    let __dot_v0 = ::autodiff::__private::rules::times(__dot_x, __v0);
    let __v1 = one + __v0;
    let __dot_v1 = __dot_v0;
    let __v2 = __v1.ln();
    let __dot_v2 = ::autodiff::__private::rules::over(__dot_v1, __v1);
    let __v3 = __v2.max(y);
    let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(__v2, y);
    let __dot_v3 = __dot_v2 * __partial_max + __dot_y * __partial_max_1;
    (__v3, __dot_v3)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct softplus_max {}
impl ::autodiff::__private::GenericCopy for softplus_max {
    type Copy = softplus_max;
    #[inline(always)]
    fn copy() -> softplus_max {
        softplus_max {}
    }
}
impl ::autodiff::__private::HasGenericCopy for softplus_max {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl softplus_max {
    #[inline]
    fn call<T: Float>(x: T, y: T) -> T {
        softplus_max(x, y)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<T: Float>(self, x: T, y: T) -> T {
        softplus_max(x, y)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<T: Float>(self, x: T, y: T, d_ret: T) -> (T, (T, T)) {
        softplus_max_vjp(x, y, d_ret)
    }
    #[inline]
    fn jvp<T: Float>(self, x: T, y: T, tangents: (T, T)) -> (T, T) {
        softplus_max_jvp(x, y, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<T: Float>(
        self,
        x: T,
        y: T,
        d_ret: T,
        grads: (::core::option::Option<&mut T>, ::core::option::Option<&mut T>),
    ) -> T {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <T as ::autodiff::__private::Zero>::zero();
        let mut __buffer_1 = <T as ::autodiff::__private::Zero>::zero();
        let value = __softplus_max_vjp_into(
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
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct softplus_max_grad {}
impl ::autodiff::__private::GenericCopy for softplus_max_grad {
    type Copy = softplus_max_grad;
    #[inline(always)]
    fn copy() -> softplus_max_grad {
        softplus_max_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl softplus_max_grad {
    #[inline]
    fn call<T: Float>(x: T, y: T) -> (T, (T, T)) {
        <softplus_max as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, y, <T as ::autodiff::__private::One>::one())
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: T, y: T) -> (T, (T, T)) {
        Self::call(x, y)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct softplus_max_vjp {}
impl ::autodiff::__private::GenericCopy for softplus_max_vjp {
    type Copy = softplus_max_vjp;
    #[inline(always)]
    fn copy() -> softplus_max_vjp {
        softplus_max_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl softplus_max_vjp {
    #[inline]
    fn call<T: Float>(x: T, y: T, d_ret: T) -> (T, (T, T)) {
        <softplus_max as ::autodiff::__private::GenericCopy>::copy().vjp(x, y, d_ret)
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: T, y: T, d_ret: T) -> (T, (T, T)) {
        Self::call(x, y, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct softplus_max_jvp {}
impl ::autodiff::__private::GenericCopy for softplus_max_jvp {
    type Copy = softplus_max_jvp;
    #[inline(always)]
    fn copy() -> softplus_max_jvp {
        softplus_max_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl softplus_max_jvp {
    #[inline]
    fn call<T: Float>(x: T, y: T, tangent: (T, T)) -> (T, T) {
        <softplus_max as ::autodiff::__private::GenericCopy>::copy().jvp(x, y, tangent)
    }
    #[inline(always)]
    fn call_on<T: Float>(self, x: T, y: T, tangent: (T, T)) -> (T, T) {
        Self::call(x, y, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __polar_vjp_into(
    r: f64,
    t: f64,
    d_ret: (f64, f64),
    grad: (&mut f64, &mut f64),
) -> (f64, f64) {
    ____polar_generic_vjp_into(r, t, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn polar_vjp(r: f64, t: f64, d_ret: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    let mut __grad_r = 0.0;
    let mut __grad_t = 0.0;
    let value = __polar_vjp_into(r, t, d_ret, (&mut __grad_r, &mut __grad_t));
    (value, (__grad_r, __grad_t))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn polar_jvp(r: f64, t: f64, tangent: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    __polar_generic_jvp(r, t, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct polar {}
impl ::autodiff::__private::GenericCopy for polar {
    type Copy = __polar_generic;
    #[inline(always)]
    fn copy() -> __polar_generic {
        __polar_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for polar {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl polar {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, r: f64, t: f64, d_ret: (f64, f64)) -> ((f64, f64), (f64, f64)) {
        polar_vjp(r, t, d_ret)
    }
    #[inline]
    fn jvp(self, r: f64, t: f64, tangents: (f64, f64)) -> ((f64, f64), (f64, f64)) {
        polar_jvp(r, t, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        r: f64,
        t: f64,
        d_ret: (f64, f64),
        grads: (::core::option::Option<&mut f64>, ::core::option::Option<&mut f64>),
    ) -> (f64, f64) {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let mut __buffer_1 = 0.0;
        let value = __polar_vjp_into(r, t, d_ret, (&mut __buffer_0, &mut __buffer_1));
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
struct polar_vjp {}
impl ::autodiff::__private::GenericCopy for polar_vjp {
    type Copy = polar_vjp;
    #[inline(always)]
    fn copy() -> polar_vjp {
        polar_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl polar_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        r: __S,
        t: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        <polar as ::autodiff::__private::GenericCopy>::copy().vjp(r, t, d_ret)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        r: __S,
        t: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        Self::call(r, t, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct polar_jvp {}
impl ::autodiff::__private::GenericCopy for polar_jvp {
    type Copy = polar_jvp;
    #[inline(always)]
    fn copy() -> polar_jvp {
        polar_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl polar_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        r: __S,
        t: __S,
        tangent: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        <polar as ::autodiff::__private::GenericCopy>::copy().jvp(r, t, tangent)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        r: __S,
        t: __S,
        tangent: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        Self::call(r, t, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __polar_generic<__S: ::autodiff::__private::Float>(r: __S, t: __S) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    (r * t.cos(), r * t.sin())
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____polar_generic_vjp_into<__S: ::autodiff::__private::Float>(
    r: __S,
    t: __S,
    d_ret: (__S, __S),
    grad: (&mut __S, &mut __S),
) -> (__S, __S) {
    let (__grad_r, __grad_t) = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = t.cos();
    let __v1 = r * __v0;
    let __v2 = t.sin();
    let __v3 = r * __v2;
    let __v4 = (__v1, __v3);
    let __d_v1 = d_ret.0;
    let __d_v3 = d_ret.1;
    let __d_r = __d_v3 * __v2;
    let __d_v2 = __d_v3 * r;
    let __d_t = __d_v2 * ::autodiff::__private::Float::cos(t);
    let __d_r_1 = __d_r + __d_v1 * __v0;
    let __d_v0 = __d_v1 * r;
    let __d_t_1 = __d_t + __d_v0 * -::autodiff::__private::Float::sin(t);
    *__grad_r = __d_r_1;
    *__grad_t = __d_t_1;
    __v4
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __polar_generic_vjp<__S: ::autodiff::__private::Float>(
    r: __S,
    t: __S,
    d_ret: (__S, __S),
) -> ((__S, __S), (__S, __S)) {
    let mut __grad_r = <__S as ::autodiff::__private::Zero>::zero();
    let mut __grad_t = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____polar_generic_vjp_into(r, t, d_ret, (&mut __grad_r, &mut __grad_t));
    (value, (__grad_r, __grad_t))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __polar_generic_jvp<__S: ::autodiff::__private::Float>(
    r: __S,
    t: __S,
    tangent: (__S, __S),
) -> ((__S, __S), (__S, __S)) {
    use ::autodiff::__private::Float as _;
    let (__dot_r, __dot_t) = tangent;
    let __v0 = t.cos();
    let __dot_v0 = __dot_t * -::autodiff::__private::Float::sin(t);
    let __v1 = r * __v0;
    let __dot_v1 = __dot_r * __v0 + __dot_v0 * r;
    let __v2 = t.sin();
    let __dot_v2 = __dot_t * ::autodiff::__private::Float::cos(t);
    let __v3 = r * __v2;
    let __dot_v3 = __dot_r * __v2 + __dot_v2 * r;
    let __v4 = (__v1, __v3);
    let __dot_v4 = (__dot_v1, __dot_v3);
    (__v4, __dot_v4)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __polar_generic {}
impl ::autodiff::__private::GenericCopy for __polar_generic {
    type Copy = __polar_generic;
    #[inline(always)]
    fn copy() -> __polar_generic {
        __polar_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __polar_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __polar_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(r: __S, t: __S) -> (__S, __S) {
        __polar_generic(r, t)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, r: __S, t: __S) -> (__S, __S) {
        __polar_generic(r, t)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        r: __S,
        t: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        __polar_generic_vjp(r, t, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        r: __S,
        t: __S,
        tangents: (__S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        __polar_generic_jvp(r, t, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        r: __S,
        t: __S,
        d_ret: (__S, __S),
        grads: (::core::option::Option<&mut __S>, ::core::option::Option<&mut __S>),
    ) -> (__S, __S) {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __buffer_1 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____polar_generic_vjp_into(
            r,
            t,
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
fn scaled_power(a: f64, b: f64, n: i32) -> f64 {
    a.powf(b) * (n as f64)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn scaled_power_grad(a: f64, b: f64, n: i32) -> (f64, f64) {
    let mut __grad_a = 0.0;
    let value = __scaled_power_vjp_into(a, b, n, 1.0, &mut __grad_a);
    (value, __grad_a)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn scaled_power_grad_into(a: f64, b: f64, n: i32, grad: &mut f64) -> f64 {
    let __grad_a = grad;
    __scaled_power_vjp_into(a, b, n, 1.0, __grad_a)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __scaled_power_vjp_into(a: f64, b: f64, n: i32, d_ret: f64, grad: &mut f64) -> f64 {
    let __grad_a = grad;
    let __v0 = a.powf(b);
    let __v1 = n as f64;
    let __v2 = __v0 * __v1;
    let __d_v0 = d_ret * __v1;
    let (__partial_powf, _) = ::autodiff::__private::rules::powf(a, b, __v0);
    let __d_a = ::autodiff::__private::rules::times(__d_v0, __partial_powf);
    *__grad_a = __d_a;
    __v2
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn scaled_power_vjp(a: f64, b: f64, n: i32, d_ret: f64) -> (f64, f64) {
    let mut __grad_a = 0.0;
    let value = __scaled_power_vjp_into(a, b, n, d_ret, &mut __grad_a);
    (value, __grad_a)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn scaled_power_jvp(a: f64, b: f64, n: i32, tangent: f64) -> (f64, f64) {
    let __dot_a = tangent;
    let __v0 = a.powf(b);
    let (__partial_powf, _) = ::autodiff::__private::rules::powf(a, b, __v0);
    let __dot_v0 = ::autodiff::__private::rules::times(__dot_a, __partial_powf);
    let __v1 = n as f64;
    let __v2 = __v0 * __v1;
    let __dot_v2 = __dot_v0 * __v1;
    (__v2, __dot_v2)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct scaled_power {}
impl ::autodiff::__private::GenericCopy for scaled_power {
    type Copy = __scaled_power_generic;
    #[inline(always)]
    fn copy() -> __scaled_power_generic {
        __scaled_power_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for scaled_power {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl scaled_power {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, a: f64, b: f64, n: i32, d_ret: f64) -> (f64, (f64, f64, ())) {
        let (value, gradient) = __scaled_power_generic::__vjp_all(a, b, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1, ()))
    }
    #[inline]
    fn jvp(self, a: f64, b: f64, n: i32, tangents: (f64, f64, ())) -> (f64, f64) {
        let (__tangent_0, __tangent_1, _) = tangents;
        __scaled_power_generic::__jvp_all(a, b, n, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        a: f64,
        b: f64,
        n: i32,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ::core::option::Option<&mut f64>, ()),
    ) -> f64 {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let value = if __slot_1.is_none() {
            let mut __buffer_0 = 0.0;
            let value = __scaled_power_vjp_into(a, b, n, d_ret, &mut __buffer_0);
            ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
            value
        } else {
            let (value, gradient) = __scaled_power_generic::__vjp_all(a, b, n, d_ret);
            let (__gradient_0, __gradient_1) = gradient;
            ::autodiff::__private::add_into_slot(__slot_0, __gradient_0);
            ::autodiff::__private::add_into_slot(__slot_1, __gradient_1);
            value
        };
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct scaled_power_grad {}
impl ::autodiff::__private::GenericCopy for scaled_power_grad {
    type Copy = scaled_power_grad;
    #[inline(always)]
    fn copy() -> scaled_power_grad {
        scaled_power_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl scaled_power_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(a: __S, b: __S, n: i32) -> (__S, __S) {
        let (__value, (__slot_0, _, _)) = <scaled_power as ::autodiff::__private::GenericCopy>::copy()
            .vjp(a, b, n, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
    ) -> (__S, __S) {
        Self::call(a, b, n)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct scaled_power_vjp {}
impl ::autodiff::__private::GenericCopy for scaled_power_vjp {
    type Copy = scaled_power_vjp;
    #[inline(always)]
    fn copy() -> scaled_power_vjp {
        scaled_power_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl scaled_power_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        a: __S,
        b: __S,
        n: i32,
        d_ret: __S,
    ) -> (__S, __S) {
        let (__value, (__slot_0, _, _)) = <scaled_power as ::autodiff::__private::GenericCopy>::copy()
            .vjp(a, b, n, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(a, b, n, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct scaled_power_jvp {}
impl ::autodiff::__private::GenericCopy for scaled_power_jvp {
    type Copy = scaled_power_jvp;
    #[inline(always)]
    fn copy() -> scaled_power_jvp {
        scaled_power_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl scaled_power_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        a: __S,
        b: __S,
        n: i32,
        tangent: __S,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <scaled_power as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                a,
                b,
                n,
                (__tangent_0, <__S as ::autodiff::__private::Zero>::zero(), ()),
            )
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(a, b, n, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __scaled_power_generic<__S: ::autodiff::__private::Float>(
    a: __S,
    b: __S,
    n: i32,
) -> __S {
    use ::autodiff::__private::Float as _;
    a.powf(b) * (::autodiff::__private::cast::<__S, _>(n))
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __scaled_power_generic {}
impl ::autodiff::__private::GenericCopy for __scaled_power_generic {
    type Copy = __scaled_power_generic;
    #[inline(always)]
    fn copy() -> __scaled_power_generic {
        __scaled_power_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __scaled_power_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __scaled_power_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        a: __S,
        b: __S,
        n: i32,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        use ::autodiff::__private::Float as _;
        let __v0 = a.powf(b);
        let __v1 = ::autodiff::__private::cast::<__S, _>(n);
        let __v2 = __v0 * __v1;
        let __d_v0 = d_ret * __v1;
        let (__partial_powf, __partial_powf_1) = ::autodiff::__private::rules::powf(
            a,
            b,
            __v0,
        );
        let __d_a = ::autodiff::__private::rules::times(__d_v0, __partial_powf);
        let __d_b = __d_v0 * __partial_powf_1;
        (__v2, (__d_a, __d_b))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        a: __S,
        b: __S,
        n: i32,
        tangent: (__S, __S),
    ) -> (__S, __S) {
        use ::autodiff::__private::Float as _;
        let (__dot_a, __dot_b) = tangent;
        let __v0 = a.powf(b);
        let (__partial_powf, __partial_powf_1) = ::autodiff::__private::rules::powf(
            a,
            b,
            __v0,
        );
        let __dot_v0 = ::autodiff::__private::rules::times(__dot_a, __partial_powf)
            + __dot_b * __partial_powf_1;
        let __v1 = ::autodiff::__private::cast::<__S, _>(n);
        let __v2 = __v0 * __v1;
        let __dot_v2 = __dot_v0 * __v1;
        (__v2, __dot_v2)
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(a: __S, b: __S, n: i32) -> __S {
        __scaled_power_generic(a, b, n)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, a: __S, b: __S, n: i32) -> __S {
        __scaled_power_generic(a, b, n)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
        d_ret: __S,
    ) -> (__S, (__S, __S, ())) {
        let (value, gradient) = Self::__vjp_all(a, b, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1, ()))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
        tangents: (__S, __S, ()),
    ) -> (__S, __S) {
        let (__tangent_0, __tangent_1, _) = tangents;
        Self::__jvp_all(a, b, n, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        a: __S,
        b: __S,
        n: i32,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>, ::core::option::Option<&mut __S>, ()),
    ) -> __S {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let (value, gradient) = Self::__vjp_all(a, b, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        ::autodiff::__private::add_into_slot(__slot_0, __gradient_0);
        ::autodiff::__private::add_into_slot(__slot_1, __gradient_1);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
