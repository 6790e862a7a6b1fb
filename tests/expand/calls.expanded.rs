use autodiff::{custom_gradient, differentiable, gradient_of};
fn square(x: f64) -> f64 {
    x * x
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn square_grad(x: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __square_vjp_into(x, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn square_grad_into(x: f64, grad: &mut f64) -> f64 {
    let __grad_x = grad;
    __square_vjp_into(x, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __square_vjp_into(x: f64, d_ret: f64, grad: &mut f64) -> f64 {
    ____square_generic_vjp_into(x, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn square_vjp(x: f64, d_ret: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __square_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn square_jvp(x: f64, tangent: f64) -> (f64, f64) {
    __square_generic_jvp(x, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct square {}
impl ::autodiff::__private::GenericCopy for square {
    type Copy = __square_generic;
    #[inline(always)]
    fn copy() -> __square_generic {
        __square_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for square {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl square {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, d_ret: f64) -> (f64, (f64,)) {
        let (value, gradient) = square_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: f64, tangents: (f64,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        square_jvp(x, __tangent_0)
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
        let value = __square_vjp_into(x, d_ret, &mut __buffer_0);
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
struct square_grad {}
impl ::autodiff::__private::GenericCopy for square_grad {
    type Copy = square_grad;
    #[inline(always)]
    fn copy() -> square_grad {
        square_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl square_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <square as ::autodiff::__private::GenericCopy>::copy()
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
struct square_vjp {}
impl ::autodiff::__private::GenericCopy for square_vjp {
    type Copy = square_vjp;
    #[inline(always)]
    fn copy() -> square_vjp {
        square_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl square_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, d_ret: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <square as ::autodiff::__private::GenericCopy>::copy()
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
struct square_jvp {}
impl ::autodiff::__private::GenericCopy for square_jvp {
    type Copy = square_jvp;
    #[inline(always)]
    fn copy() -> square_jvp {
        square_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl square_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, tangent: __S) -> (__S, __S) {
        let __tangent_0 = tangent;
        <square as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
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
fn __square_generic<__S: ::autodiff::__private::Float>(x: __S) -> __S {
    use ::autodiff::__private::Float as _;
    x * x
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____square_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    d_ret: __S,
    grad: &mut __S,
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = x * x;
    let __d_x = d_ret * (x + x);
    *__grad_x = __d_x;
    __v0
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __square_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    d_ret: __S,
) -> (__S, __S) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____square_generic_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __square_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    tangent: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __dot_x = tangent;
    let __v0 = x * x;
    let __dot_v0 = __dot_x * (x + x);
    (__v0, __dot_v0)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __square_generic {}
impl ::autodiff::__private::GenericCopy for __square_generic {
    type Copy = __square_generic;
    #[inline(always)]
    fn copy() -> __square_generic {
        __square_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __square_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __square_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S) -> __S {
        __square_generic(x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S) -> __S {
        __square_generic(x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        d_ret: __S,
    ) -> (__S, (__S,)) {
        let (value, gradient) = __square_generic_vjp(x, d_ret);
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
        __square_generic_jvp(x, __tangent_0)
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
        let value = ____square_generic_vjp_into(x, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[inline(always)]
#[allow(clippy::type_complexity, dead_code)]
fn __log1pexp_custom_body(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}
fn log1pexp(x: f64) -> f64 {
    __log1pexp_custom_body(x).0
}
fn log1pexp_grad(x: f64) -> (f64, f64) {
    let (value, gradient) = __log1pexp_custom_body(x);
    (value, gradient(1.0))
}
fn log1pexp_grad_into(x: f64, grad: &mut f64) -> f64 {
    let (value, __part_0) = log1pexp_grad(x);
    let __buffer_0 = grad;
    *__buffer_0 = __part_0;
    value
}
#[inline]
fn log1pexp_vjp(x: f64, d_ret: f64) -> (f64, f64) {
    let (value, gradient) = __log1pexp_custom_body(x);
    (value, gradient(d_ret))
}
#[inline]
#[allow(clippy::redundant_closure_call)]
fn log1pexp_jvp(x: f64, tangent: f64) -> (f64, f64) {
    let (value, gradient) = __log1pexp_custom_body(x);
    {
        let __row = gradient(1.0);
        (value, __row * tangent)
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct log1pexp {}
impl ::autodiff::__private::GenericCopy for log1pexp {
    type Copy = __log1pexp_generic;
    #[inline(always)]
    fn copy() -> __log1pexp_generic {
        __log1pexp_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for log1pexp {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl log1pexp {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, d_ret: f64) -> (f64, (f64,)) {
        let (value, gradient) = log1pexp_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: f64, tangents: (f64,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        log1pexp_jvp(x, __tangent_0)
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
        let (value, gradient) = log1pexp_vjp(x, d_ret);
        let __gradient_0 = gradient;
        ::autodiff::__private::add_into_slot(__slot_0, __gradient_0);
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct log1pexp_grad {}
impl ::autodiff::__private::GenericCopy for log1pexp_grad {
    type Copy = log1pexp_grad;
    #[inline(always)]
    fn copy() -> log1pexp_grad {
        log1pexp_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl log1pexp_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <log1pexp as ::autodiff::__private::GenericCopy>::copy()
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
struct log1pexp_vjp {}
impl ::autodiff::__private::GenericCopy for log1pexp_vjp {
    type Copy = log1pexp_vjp;
    #[inline(always)]
    fn copy() -> log1pexp_vjp {
        log1pexp_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl log1pexp_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, d_ret: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <log1pexp as ::autodiff::__private::GenericCopy>::copy()
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
struct log1pexp_jvp {}
impl ::autodiff::__private::GenericCopy for log1pexp_jvp {
    type Copy = log1pexp_jvp;
    #[inline(always)]
    fn copy() -> log1pexp_jvp {
        log1pexp_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl log1pexp_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, tangent: __S) -> (__S, __S) {
        let __tangent_0 = tangent;
        <log1pexp as ::autodiff::__private::GenericCopy>::copy().jvp(x, (__tangent_0,))
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
#[::autodiff::custom_gradient]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __log1pexp_generic<__S: ::autodiff::__private::Float>(
    x: __S,
) -> (__S, impl Fn(__S) -> __S) {
    use ::autodiff::__private::Float as _;
    let e = x.exp();
    (
        (::autodiff::__private::lit::<__S>(1.0 as f64) + e).ln(),
        move |dy| {
            dy
                * (::autodiff::__private::lit::<__S>(1.0 as f64)
                    - ::autodiff::__private::lit::<__S>(1.0 as f64)
                        / (::autodiff::__private::lit::<__S>(1.0 as f64) + e))
        },
    )
}
use libm::erf;
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * 2.0 / core::f64::consts::PI.sqrt() * (-x * x).exp()
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct erf {}
impl ::autodiff::__private::GenericCopy for erf {
    type Copy = __erf_generic;
    #[inline(always)]
    fn copy() -> __erf_generic {
        __erf_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for erf {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl erf {
    #[inline]
    fn __registered_target(x: f64) -> f64 {
        let __target: fn(f64) -> f64 = libm::erf;
        __target(x)
    }
    /// Reverse mode of `erf_vjp`: its value and `erf_vjp` applied to the output cotangent `d_ret`.
    #[inline]
    fn __registered_vjp(x: f64, d_ret: f64) -> (f64, f64) {
        (Self::__registered_target(x), erf_vjp(x, d_ret))
    }
    /// Forward mode of `erf_vjp`, from its gradient: the inner product of the output's cotangents with the tangent.
    #[inline]
    #[allow(clippy::redundant_closure_call)]
    fn __registered_jvp(x: f64, tangent: f64) -> (f64, f64) {
        let value = Self::__registered_target(x);
        let gradient = |dy| erf_vjp(x, dy);
        {
            let __row = gradient(1.0);
            (value, __row * tangent)
        }
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, d_ret: f64) -> (f64, (f64,)) {
        let (value, gradient) = Self::__registered_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, x: f64, tangents: (f64,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        Self::__registered_jvp(x, __tangent_0)
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
        let (value, gradient) = Self::__registered_vjp(x, d_ret);
        let __gradient_0 = gradient;
        ::autodiff::__private::add_into_slot(__slot_0, __gradient_0);
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, non_snake_case, dead_code)]
trait __autodiff_gradient_of__libm__erf {
    fn __autodiff_gradient_of__libm__erf(&self) -> erf;
}
#[allow(non_snake_case)]
impl __autodiff_gradient_of__libm__erf for ::autodiff::__private::Site {
    #[inline(always)]
    fn __autodiff_gradient_of__libm__erf(&self) -> erf {
        erf {}
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __erf_vjp_generic<__S: ::autodiff::__private::Float>(x: __S, dy: __S) -> __S {
    use ::autodiff::__private::Float as _;
    dy * ::autodiff::__private::lit::<__S>(2.0 as f64)
        / ::autodiff::__private::lit::<__S>(core::f64::consts::PI as f64).sqrt()
        * (-x * x).exp()
}
#[::autodiff::custom_gradient]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __erf_generic<__S: ::autodiff::__private::Float>(
    x: __S,
) -> (__S, impl Fn(__S) -> __S) {
    use ::autodiff::__private::Float as _;
    let __value_0 = ::autodiff::stop_gradient(x);
    let __step_0 = x - __value_0;
    let __value = ::autodiff::__private::lit::<
        __S,
    >(erf::__registered_target(x.to_f64().unwrap_or(f64::NAN)) as f64)
        + {
            let __budget = ::autodiff::__private::budget(
                ::autodiff::__private::steps_power(
                    ::core::iter::empty().chain(::core::iter::once(__step_0)),
                ),
            );
            match __budget.level() {
                0 => <__S as ::autodiff::__private::Zero>::zero(),
                1 => {
                    let __slope = ::autodiff::__private::lift::<
                        __S,
                        _,
                    >(erf_vjp(x.to_f64().unwrap_or(f64::NAN), 1.0));
                    <__S as ::autodiff::__private::Zero>::zero() + __step_0 * __slope
                }
                __level => {
                    ::autodiff::__private::gauss_legendre(__level + 1)
                        .iter()
                        .fold(
                            <__S as ::autodiff::__private::Zero>::zero(),
                            |__acc, &(__t, __w)| {
                                let __t = ::autodiff::__private::lit::<__S>(__t);
                                let __middle_0 = __value_0 + __step_0 * __t;
                                let __slope = __erf_vjp_generic(
                                    __middle_0,
                                    ::autodiff::__private::One::one(),
                                );
                                __acc
                                    + ::autodiff::__private::lit::<__S>(__w)
                                        * (<__S as ::autodiff::__private::Zero>::zero()
                                            + __step_0 * __slope)
                            },
                        )
                }
            }
        };
    (__value, move |dy: __S| __erf_vjp_generic(x, dy))
}
fn model(x: f64, w: f64) -> f64 {
    log1pexp(square(x) * w) + erf(w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_grad(x: f64, w: f64) -> (f64, (f64, f64)) {
    let mut __grad_x = 0.0;
    let mut __grad_w = 0.0;
    let value = __model_vjp_into(x, w, 1.0, (&mut __grad_x, &mut __grad_w));
    (value, (__grad_x, __grad_w))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_grad_into(x: f64, w: f64, grad: (&mut f64, &mut f64)) -> f64 {
    let (__grad_x, __grad_w) = grad;
    __model_vjp_into(x, w, 1.0, (__grad_x, __grad_w))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __model_vjp_into(x: f64, w: f64, d_ret: f64, grad: (&mut f64, &mut f64)) -> f64 {
    let (__grad_x, __grad_w) = grad;
    let __v0 = square(x);
    let __v1 = __v0 * w;
    let __v2 = log1pexp(__v1);
    let __v3 = erf(w);
    let __v4 = __v2 + __v3;
    let mut __d_w = -0.0;
    let _ = ::autodiff::__private::derivative_of!(erf, vjp_into(_, _, _); through 0usize)
        .vjp_into(w, d_ret, (::core::option::Option::Some(&mut __d_w),));
    let mut __d_v1 = -0.0;
    let _ = ::autodiff::__private::derivative_of!(
        log1pexp, vjp_into(_, _, _); through 0usize
    )
        .vjp_into(__v1, d_ret, (::core::option::Option::Some(&mut __d_v1),));
    let __d_v0 = __d_v1 * w;
    let __d_w_1 = __d_w + __d_v1 * __v0;
    let mut __d_x = -0.0;
    let _ = ::autodiff::__private::derivative_of!(
        square, vjp_into(_, _, _); through 0usize
    )
        .vjp_into(x, __d_v0, (::core::option::Option::Some(&mut __d_x),));
    *__grad_x = __d_x;
    *__grad_w = __d_w_1;
    __v4
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_vjp(x: f64, w: f64, d_ret: f64) -> (f64, (f64, f64)) {
    let mut __grad_x = 0.0;
    let mut __grad_w = 0.0;
    let value = __model_vjp_into(x, w, d_ret, (&mut __grad_x, &mut __grad_w));
    (value, (__grad_x, __grad_w))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_jvp(x: f64, w: f64, tangent: (f64, f64)) -> (f64, f64) {
    let (__dot_x, __dot_w) = tangent;
    let (__v0, __dot_v0) = ::autodiff::__private::derivative_of!(
        square, jvp(_, _); through 0usize
    )
        .jvp(x, (__dot_x,));
    let __v1 = __v0 * w;
    let __dot_v1 = __dot_v0 * w + __dot_w * __v0;
    let (__v2, __dot_v2) = ::autodiff::__private::derivative_of!(
        log1pexp, jvp(_, _); through 0usize
    )
        .jvp(__v1, (__dot_v1,));
    let (__v3, __dot_v3) = ::autodiff::__private::derivative_of!(
        erf, jvp(_, _); through 0usize
    )
        .jvp(w, (__dot_w,));
    let __v4 = __v2 + __v3;
    let __dot_v4 = __dot_v2 + __dot_v3;
    (__v4, __dot_v4)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct model {}
impl ::autodiff::__private::GenericCopy for model {
    type Copy = __model_generic;
    #[inline(always)]
    fn copy() -> __model_generic {
        __model_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for model {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl model {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, w: f64, d_ret: f64) -> (f64, (f64, f64)) {
        model_vjp(x, w, d_ret)
    }
    #[inline]
    fn jvp(self, x: f64, w: f64, tangents: (f64, f64)) -> (f64, f64) {
        model_jvp(x, w, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: f64,
        w: f64,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ::core::option::Option<&mut f64>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let mut __buffer_1 = 0.0;
        let value = __model_vjp_into(x, w, d_ret, (&mut __buffer_0, &mut __buffer_1));
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct model_grad {}
impl ::autodiff::__private::GenericCopy for model_grad {
    type Copy = model_grad;
    #[inline(always)]
    fn copy() -> model_grad {
        model_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl model_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, w: __S) -> (__S, (__S, __S)) {
        <model as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, w, <__S as ::autodiff::__private::One>::one())
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
    ) -> (__S, (__S, __S)) {
        Self::call(x, w)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct model_vjp {}
impl ::autodiff::__private::GenericCopy for model_vjp {
    type Copy = model_vjp;
    #[inline(always)]
    fn copy() -> model_vjp {
        model_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl model_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        w: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        <model as ::autodiff::__private::GenericCopy>::copy().vjp(x, w, d_ret)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        Self::call(x, w, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct model_jvp {}
impl ::autodiff::__private::GenericCopy for model_jvp {
    type Copy = model_jvp;
    #[inline(always)]
    fn copy() -> model_jvp {
        model_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl model_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        w: __S,
        tangent: (__S, __S),
    ) -> (__S, __S) {
        <model as ::autodiff::__private::GenericCopy>::copy().jvp(x, w, tangent)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
        tangent: (__S, __S),
    ) -> (__S, __S) {
        Self::call(x, w, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_generic<__S: ::autodiff::__private::Float>(x: __S, w: __S) -> __S {
    use ::autodiff::__private::Float as _;
    <log1pexp as ::autodiff::__private::GenericCopy>::Copy::call(
        <square as ::autodiff::__private::GenericCopy>::Copy::call(x) * w,
    ) + <erf as ::autodiff::__private::GenericCopy>::Copy::call(w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____model_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    w: __S,
    d_ret: __S,
    grad: (&mut __S, &mut __S),
) -> __S {
    let (__grad_x, __grad_w) = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = <square as ::autodiff::__private::GenericCopy>::Copy::call(x);
    let __v1 = __v0 * w;
    let __v2 = <log1pexp as ::autodiff::__private::GenericCopy>::Copy::call(__v1);
    let __v3 = <erf as ::autodiff::__private::GenericCopy>::Copy::call(w);
    let __v4 = __v2 + __v3;
    let mut __d_w = <__S as ::autodiff::__private::Zero>::zero();
    let _ = <erf as ::autodiff::__private::GenericCopy>::copy()
        .vjp_into(w, d_ret, (::core::option::Option::Some(&mut __d_w),));
    let mut __d_v1 = <__S as ::autodiff::__private::Zero>::zero();
    let _ = <log1pexp as ::autodiff::__private::GenericCopy>::copy()
        .vjp_into(__v1, d_ret, (::core::option::Option::Some(&mut __d_v1),));
    let __d_v0 = __d_v1 * w;
    let __d_w_1 = __d_w + __d_v1 * __v0;
    let mut __d_x = <__S as ::autodiff::__private::Zero>::zero();
    let _ = <square as ::autodiff::__private::GenericCopy>::copy()
        .vjp_into(x, __d_v0, (::core::option::Option::Some(&mut __d_x),));
    *__grad_x = __d_x;
    *__grad_w = __d_w_1;
    __v4
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    w: __S,
    d_ret: __S,
) -> (__S, (__S, __S)) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let mut __grad_w = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____model_generic_vjp_into(x, w, d_ret, (&mut __grad_x, &mut __grad_w));
    (value, (__grad_x, __grad_w))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    w: __S,
    tangent: (__S, __S),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let (__dot_x, __dot_w) = tangent;
    let (__v0, __dot_v0) = <square as ::autodiff::__private::GenericCopy>::copy()
        .jvp(x, (__dot_x,));
    let __v1 = __v0 * w;
    let __dot_v1 = __dot_v0 * w + __dot_w * __v0;
    let (__v2, __dot_v2) = <log1pexp as ::autodiff::__private::GenericCopy>::copy()
        .jvp(__v1, (__dot_v1,));
    let (__v3, __dot_v3) = <erf as ::autodiff::__private::GenericCopy>::copy()
        .jvp(w, (__dot_w,));
    let __v4 = __v2 + __v3;
    let __dot_v4 = __dot_v2 + __dot_v3;
    (__v4, __dot_v4)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __model_generic {}
impl ::autodiff::__private::GenericCopy for __model_generic {
    type Copy = __model_generic;
    #[inline(always)]
    fn copy() -> __model_generic {
        __model_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __model_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __model_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, w: __S) -> __S {
        __model_generic(x, w)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S, w: __S) -> __S {
        __model_generic(x, w)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
        d_ret: __S,
    ) -> (__S, (__S, __S)) {
        __model_generic_vjp(x, w, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
        tangents: (__S, __S),
    ) -> (__S, __S) {
        __model_generic_jvp(x, w, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        w: __S,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>, ::core::option::Option<&mut __S>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __buffer_1 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____model_generic_vjp_into(
            x,
            w,
            d_ret,
            (&mut __buffer_0, &mut __buffer_1),
        );
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
        value
    }
}
