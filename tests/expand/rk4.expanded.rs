use autodiff::differentiable;
pub fn lotka_volterra(p: &[f64], u: f64, v: f64) -> (f64, f64) {
    (p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
pub fn __lotka_volterra_vjp_into(
    p: &[f64],
    u: f64,
    v: f64,
    d_ret: (f64, f64),
    grad: (&mut [f64], &mut f64, &mut f64),
) -> (f64, f64) {
    ____lotka_volterra_generic_vjp_into(p, u, v, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn lotka_volterra_vjp(
    p: &[f64],
    u: f64,
    v: f64,
    d_ret: (f64, f64),
) -> ((f64, f64), (::std::vec::Vec<f64>, f64, f64)) {
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let mut __grad_u = 0.0;
    let mut __grad_v = 0.0;
    let value = __lotka_volterra_vjp_into(
        p,
        u,
        v,
        d_ret,
        (&mut __grad_p, &mut __grad_u, &mut __grad_v),
    );
    (value, (__grad_p, __grad_u, __grad_v))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn lotka_volterra_jvp(
    p: &[f64],
    u: f64,
    v: f64,
    tangent: (::std::vec::Vec<f64>, f64, f64),
) -> ((f64, f64), (f64, f64)) {
    __lotka_volterra_generic_jvp(p, u, v, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct lotka_volterra {}
impl ::autodiff::__private::GenericCopy for lotka_volterra {
    type Copy = __lotka_volterra_generic;
    #[inline(always)]
    fn copy() -> __lotka_volterra_generic {
        __lotka_volterra_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for lotka_volterra {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl lotka_volterra {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp(
        self,
        p: &[f64],
        u: f64,
        v: f64,
        d_ret: (f64, f64),
    ) -> ((f64, f64), (::std::vec::Vec<f64>, f64, f64)) {
        lotka_volterra_vjp(p, u, v, d_ret)
    }
    #[inline]
    pub fn jvp(
        self,
        p: &[f64],
        u: f64,
        v: f64,
        tangents: (::std::vec::Vec<f64>, f64, f64),
    ) -> ((f64, f64), (f64, f64)) {
        lotka_volterra_jvp(p, u, v, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out(
        self,
        p: &[f64],
        u: f64,
        v: f64,
        d_ret: ::core::option::Option<(f64, f64)>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<f64>,
            impl ::autodiff::__private::PassOn<f64>,
        ),
    ) -> ((f64, f64), (::std::vec::Vec<f64>, f64, f64)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => (0.0, 0.0),
        };
        let (value, gradient) = lotka_volterra_vjp(p, u, v, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out(
        self,
        p: &[f64],
        u: f64,
        v: f64,
        tangents: (::std::vec::Vec<f64>, f64, f64),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> ((f64, f64), (f64, f64)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        lotka_volterra_jvp(p, u, v, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into(
        self,
        p: &[f64],
        u: f64,
        v: f64,
        d_ret: (f64, f64),
        grads: (
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut f64>,
            ::core::option::Option<&mut f64>,
        ),
    ) -> (f64, f64) {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let value = if __slot_0.is_none() {
            let mut __buffer_1 = 0.0;
            let mut __buffer_2 = 0.0;
            let value = __lotka_volterra_vjp_into_without_p(
                p,
                u,
                v,
                d_ret,
                (&mut __buffer_1, &mut __buffer_2),
            );
            ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
            ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
            value
        } else {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                p.len(),
            );
            let mut __buffer_1 = 0.0;
            let mut __buffer_2 = 0.0;
            let value = __lotka_volterra_vjp_into(
                p,
                u,
                v,
                d_ret,
                (__buffer_0, &mut __buffer_1, &mut __buffer_2),
            );
            ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
            ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
            value
        };
        value
    }
    #[inline(always)]
    pub fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __lotka_volterra_vjp_into_without_p(
    p: &[f64],
    u: f64,
    v: f64,
    d_ret: (f64, f64),
    grad: (&mut f64, &mut f64),
) -> (f64, f64) {
    let (__grad_u, __grad_v) = grad;
    let __v0 = p[0];
    let __v1 = __v0 * u;
    let __v2 = p[1];
    let __v3 = __v2 * u;
    let __v4 = __v3 * v;
    let __v5 = __v1 - __v4;
    let __v6 = p[2];
    let __v7 = __v6 * u;
    let __v8 = __v7 * v;
    let __v9 = p[3];
    let __v10 = __v9 * v;
    let __v11 = __v8 - __v10;
    let __v12 = (__v5, __v11);
    let __d_v5 = d_ret.0;
    let __d_v11 = d_ret.1;
    let __d_v10 = -__d_v11;
    let __d_v = __d_v10 * __v9;
    let __d_v7 = __d_v11 * v;
    let __d_v_1 = __d_v + __d_v11 * __v7;
    let __d_u = __d_v7 * __v6;
    let __d_v4 = -__d_v5;
    let __d_v3 = __d_v4 * v;
    let __d_v_2 = __d_v_1 + __d_v4 * __v3;
    let __d_u_1 = __d_u + __d_v3 * __v2;
    let __d_u_2 = __d_u_1 + __d_v5 * __v0;
    *__grad_u = __d_u_2;
    *__grad_v = __d_v_2;
    __v12
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct lotka_volterra_vjp {}
impl ::autodiff::__private::GenericCopy for lotka_volterra_vjp {
    type Copy = lotka_volterra_vjp;
    #[inline(always)]
    fn copy() -> lotka_volterra_vjp {
        lotka_volterra_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl lotka_volterra_vjp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        u: __S,
        v: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (::std::vec::Vec<__S>, __S, __S)) {
        <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .vjp(p, u, v, d_ret)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (::std::vec::Vec<__S>, __S, __S)) {
        Self::call(p, u, v, d_ret)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct lotka_volterra_jvp {}
impl ::autodiff::__private::GenericCopy for lotka_volterra_jvp {
    type Copy = lotka_volterra_jvp;
    #[inline(always)]
    fn copy() -> lotka_volterra_jvp {
        lotka_volterra_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl lotka_volterra_jvp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        u: __S,
        v: __S,
        tangent: (::std::vec::Vec<__S>, __S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .jvp(p, u, v, tangent)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        tangent: (::std::vec::Vec<__S>, __S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        Self::call(p, u, v, tangent)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __lotka_volterra_generic<__S: ::autodiff::__private::Float>(
    p: &[__S],
    u: __S,
    v: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    (p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn ____lotka_volterra_generic_vjp_into<__S: ::autodiff::__private::Float>(
    p: &[__S],
    u: __S,
    v: __S,
    d_ret: (__S, __S),
    grad: (&mut [__S], &mut __S, &mut __S),
) -> (__S, __S) {
    let (__grad_p, __grad_u, __grad_v) = grad;
    use ::autodiff::__private::Float as _;
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let __v0 = p[0];
    let __v1 = __v0 * u;
    let __v2 = p[1];
    let __v3 = __v2 * u;
    let __v4 = __v3 * v;
    let __v5 = __v1 - __v4;
    let __v6 = p[2];
    let __v7 = __v6 * u;
    let __v8 = __v7 * v;
    let __v9 = p[3];
    let __v10 = __v9 * v;
    let __v11 = __v8 - __v10;
    let __v12 = (__v5, __v11);
    let __d_v5 = d_ret.0;
    let __d_v11 = d_ret.1;
    let __d_v10 = -__d_v11;
    let __d_v9 = __d_v10 * v;
    let __d_v = __d_v10 * __v9;
    ::autodiff::__private::add_to(&mut __d_p[3], __d_v9);
    let __d_v7 = __d_v11 * v;
    let __d_v_1 = __d_v + __d_v11 * __v7;
    let __d_v6 = __d_v7 * u;
    let __d_u = __d_v7 * __v6;
    ::autodiff::__private::add_to(&mut __d_p[2], __d_v6);
    let __d_v4 = -__d_v5;
    let __d_v3 = __d_v4 * v;
    let __d_v_2 = __d_v_1 + __d_v4 * __v3;
    let __d_v2 = __d_v3 * u;
    let __d_u_1 = __d_u + __d_v3 * __v2;
    ::autodiff::__private::add_to(&mut __d_p[1], __d_v2);
    let __d_v0 = __d_v5 * u;
    let __d_u_2 = __d_u_1 + __d_v5 * __v0;
    ::autodiff::__private::add_to(&mut __d_p[0], __d_v0);
    *__grad_u = __d_u_2;
    *__grad_v = __d_v_2;
    __v12
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __lotka_volterra_generic_vjp<__S: ::autodiff::__private::Float>(
    p: &[__S],
    u: __S,
    v: __S,
    d_ret: (__S, __S),
) -> ((__S, __S), (::std::vec::Vec<__S>, __S, __S)) {
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let mut __grad_u = <__S as ::autodiff::__private::Zero>::zero();
    let mut __grad_v = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____lotka_volterra_generic_vjp_into(
        p,
        u,
        v,
        d_ret,
        (&mut __grad_p, &mut __grad_u, &mut __grad_v),
    );
    (value, (__grad_p, __grad_u, __grad_v))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __lotka_volterra_generic_jvp<__S: ::autodiff::__private::Float>(
    p: &[__S],
    u: __S,
    v: __S,
    tangent: (::std::vec::Vec<__S>, __S, __S),
) -> ((__S, __S), (__S, __S)) {
    use ::autodiff::__private::Float as _;
    let (__dot_p, __dot_u, __dot_v) = tangent;
    let mut __dot_p = ::autodiff::__private::tangent("p", __dot_p, &p);
    let __v0 = p[0];
    let __dot_v0 = __dot_p[0];
    let __v1 = __v0 * u;
    let __dot_v1 = __dot_v0 * u + __dot_u * __v0;
    let __v2 = p[1];
    let __dot_v2 = __dot_p[1];
    let __v3 = __v2 * u;
    let __dot_v3 = __dot_v2 * u + __dot_u * __v2;
    let __v4 = __v3 * v;
    let __dot_v4 = __dot_v3 * v + __dot_v * __v3;
    let __v5 = __v1 - __v4;
    let __dot_v5 = __dot_v1 - __dot_v4;
    let __v6 = p[2];
    let __dot_v6 = __dot_p[2];
    let __v7 = __v6 * u;
    let __dot_v7 = __dot_v6 * u + __dot_u * __v6;
    let __v8 = __v7 * v;
    let __dot_v8 = __dot_v7 * v + __dot_v * __v7;
    let __v9 = p[3];
    let __dot_v9 = __dot_p[3];
    let __v10 = __v9 * v;
    let __dot_v10 = __dot_v9 * v + __dot_v * __v9;
    let __v11 = __v8 - __v10;
    let __dot_v11 = __dot_v8 - __dot_v10;
    let __v12 = (__v5, __v11);
    let __dot_v12 = (__dot_v5, __dot_v11);
    (__v12, __dot_v12)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct __lotka_volterra_generic {}
impl ::autodiff::__private::GenericCopy for __lotka_volterra_generic {
    type Copy = __lotka_volterra_generic;
    #[inline(always)]
    fn copy() -> __lotka_volterra_generic {
        __lotka_volterra_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __lotka_volterra_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __lotka_volterra_generic {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        u: __S,
        v: __S,
    ) -> (__S, __S) {
        __lotka_volterra_generic(p, u, v)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
    ) -> (__S, __S) {
        __lotka_volterra_generic(p, u, v)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        d_ret: (__S, __S),
    ) -> ((__S, __S), (::std::vec::Vec<__S>, __S, __S)) {
        __lotka_volterra_generic_vjp(p, u, v, d_ret)
    }
    #[inline]
    pub fn jvp<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        tangents: (::std::vec::Vec<__S>, __S, __S),
    ) -> ((__S, __S), (__S, __S)) {
        __lotka_volterra_generic_jvp(p, u, v, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        d_ret: ::core::option::Option<(__S, __S)>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<__S>,
            impl ::autodiff::__private::PassOn<__S>,
        ),
    ) -> ((__S, __S), (::std::vec::Vec<__S>, __S, __S)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {
                (
                    <__S as ::autodiff::__private::Zero>::zero(),
                    <__S as ::autodiff::__private::Zero>::zero(),
                )
            }
        };
        let (value, gradient) = __lotka_volterra_generic_vjp(p, u, v, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        tangents: (::std::vec::Vec<__S>, __S, __S),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> ((__S, __S), (__S, __S)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        __lotka_volterra_generic_jvp(p, u, v, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        u: __S,
        v: __S,
        d_ret: (__S, __S),
        grads: (
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut __S>,
            ::core::option::Option<&mut __S>,
        ),
    ) -> (__S, __S) {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            p.len(),
        );
        let mut __buffer_1 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __buffer_2 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____lotka_volterra_generic_vjp_into(
            p,
            u,
            v,
            d_ret,
            (__buffer_0, &mut __buffer_1, &mut __buffer_2),
        );
        ::autodiff::__private::add_into_slot(__slot_1, __buffer_1);
        ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
        value
    }
    #[inline(always)]
    pub fn cotangent_linear(&self) -> bool {
        true
    }
}
pub fn rk4(p: &[f64], steps: usize) -> f64 {
    let h = 0.01;
    let mut u = p[4];
    let mut v = p[5];
    for _ in 0..steps {
        let (k1u, k1v) = lotka_volterra(p, u, v);
        let (k2u, k2v) = lotka_volterra(p, u + 0.5 * h * k1u, v + 0.5 * h * k1v);
        let (k3u, k3v) = lotka_volterra(p, u + 0.5 * h * k2u, v + 0.5 * h * k2v);
        let (k4u, k4v) = lotka_volterra(p, u + h * k3u, v + h * k3v);
        u += h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    u + v
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rk4_grad(p: &[f64], steps: usize) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let value = __rk4_vjp_into(p, steps, 1.0, &mut __grad_p);
    (value, __grad_p)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rk4_grad_into(p: &[f64], steps: usize, grad: &mut [f64]) -> f64 {
    let __grad_p = grad;
    ::autodiff::__private::clear(&mut __grad_p[..]);
    __rk4_vjp_into(p, steps, 1.0, __grad_p)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __rk4_vjp_into(p: &[f64], steps: usize, d_ret: f64, grad: &mut [f64]) -> f64 {
    let __grad_p = grad;
    let mut __tape_u_1 = ::autodiff::__private::Tape::new();
    let mut __tape_v_1 = ::autodiff::__private::Tape::new();
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let u = p[4];
    let v = p[5];
    let mut u_1 = u;
    let mut v_1 = v;
    __tape_u_1.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0);
    __tape_v_1.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0);
    for __i in 0..steps {
        __tape_u_1.push(u_1);
        __tape_v_1.push(v_1);
        let __v0 = lotka_volterra(p, u_1, v_1);
        let k1u = __v0.0;
        let k1v = __v0.1;
        let __v1 = 0.5 * 0.01;
        let __v2 = __v1 * k1u;
        let __v3 = u_1 + __v2;
        let __v4 = __v1 * k1v;
        let __v5 = v_1 + __v4;
        let __v6 = lotka_volterra(p, __v3, __v5);
        let k2u = __v6.0;
        let k2v = __v6.1;
        let __v7 = __v1 * k2u;
        let __v8 = u_1 + __v7;
        let __v9 = __v1 * k2v;
        let __v10 = v_1 + __v9;
        let __v11 = lotka_volterra(p, __v8, __v10);
        let k3u = __v11.0;
        let k3v = __v11.1;
        let __v12 = 0.01 * k3u;
        let __v13 = u_1 + __v12;
        let __v14 = 0.01 * k3v;
        let __v15 = v_1 + __v14;
        let __v16 = lotka_volterra(p, __v13, __v15);
        let k4u = __v16.0;
        let k4v = __v16.1;
        let __v17 = 0.01 / 6.0;
        let __v18 = 2.0 * k2u;
        let __v19 = k1u + __v18;
        let __v20 = 2.0 * k3u;
        let __v21 = __v19 + __v20;
        let __v22 = __v21 + k4u;
        let __v23 = __v17 * __v22;
        let u_2 = u_1 + __v23;
        let __v24 = 2.0 * k2v;
        let __v25 = k1v + __v24;
        let __v26 = 2.0 * k3v;
        let __v27 = __v25 + __v26;
        let __v28 = __v27 + k4v;
        let __v29 = __v17 * __v28;
        let v_2 = v_1 + __v29;
        (u_1, v_1) = (u_2, v_2);
    }
    let __v30 = u_1 + v_1;
    let mut __tape_u_1 = __tape_u_1.reader();
    let mut __tape_v_1 = __tape_v_1.reader();
    let mut __d_u_1 = d_ret;
    let mut __d_v_1 = d_ret;
    for __i in (0..steps).rev() {
        let u_1 = __tape_u_1.pop();
        let v_1 = __tape_v_1.pop();
        let __v0 = lotka_volterra(p, u_1, v_1);
        let k1u = __v0.0;
        let k1v = __v0.1;
        let __v1 = 0.5 * 0.01;
        let __v2 = __v1 * k1u;
        let __v3 = u_1 + __v2;
        let __v4 = __v1 * k1v;
        let __v5 = v_1 + __v4;
        let __v6 = lotka_volterra(p, __v3, __v5);
        let k2u = __v6.0;
        let k2v = __v6.1;
        let __v7 = __v1 * k2u;
        let __v8 = u_1 + __v7;
        let __v9 = __v1 * k2v;
        let __v10 = v_1 + __v9;
        let __v11 = lotka_volterra(p, __v8, __v10);
        let k3u = __v11.0;
        let k3v = __v11.1;
        let __v12 = 0.01 * k3u;
        let __v13 = u_1 + __v12;
        let __v14 = 0.01 * k3v;
        let __v15 = v_1 + __v14;
        let __v17 = 0.01 / 6.0;
        let __d_v28 = __d_v_1 * __v17;
        let __d_k3v = __d_v28 * 2.0;
        let __d_k2v = __d_v28 * 2.0;
        let __d_v22 = __d_u_1 * __v17;
        let __d_k3u = __d_v22 * 2.0;
        let __d_k2u = __d_v22 * 2.0;
        let __d_v16_1 = (__d_v22, __d_v28);
        let mut __d_v13 = -0.0;
        let mut __d_v15 = -0.0;
        let _ = ::autodiff::__private::derivative_of!(
            lotka_volterra, vjp_into(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp_into(
                p,
                __v13,
                __v15,
                __d_v16_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v13),
                    ::core::option::Option::Some(&mut __d_v15),
                ),
            );
        let __d_v_1_1 = __d_v_1 + __d_v15;
        let __d_k3v_1 = __d_k3v + __d_v15 * 0.01;
        let __d_u_1_1 = __d_u_1 + __d_v13;
        let __d_k3u_1 = __d_k3u + __d_v13 * 0.01;
        let __d_v11_1 = (__d_k3u_1, __d_k3v_1);
        let mut __d_v8 = -0.0;
        let mut __d_v10 = -0.0;
        let _ = ::autodiff::__private::derivative_of!(
            lotka_volterra, vjp_into(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp_into(
                p,
                __v8,
                __v10,
                __d_v11_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v8),
                    ::core::option::Option::Some(&mut __d_v10),
                ),
            );
        let __d_v_1_2 = __d_v_1_1 + __d_v10;
        let __d_k2v_1 = __d_k2v + __d_v10 * __v1;
        let __d_u_1_2 = __d_u_1_1 + __d_v8;
        let __d_k2u_1 = __d_k2u + __d_v8 * __v1;
        let __d_v6_1 = (__d_k2u_1, __d_k2v_1);
        let mut __d_v3 = -0.0;
        let mut __d_v5 = -0.0;
        let _ = ::autodiff::__private::derivative_of!(
            lotka_volterra, vjp_into(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp_into(
                p,
                __v3,
                __v5,
                __d_v6_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v3),
                    ::core::option::Option::Some(&mut __d_v5),
                ),
            );
        let __d_v_1_3 = __d_v_1_2 + __d_v5;
        let __d_k1v = __d_v28 + __d_v5 * __v1;
        let __d_u_1_3 = __d_u_1_2 + __d_v3;
        let __d_k1u = __d_v22 + __d_v3 * __v1;
        let __d_v0_1 = (__d_k1u, __d_k1v);
        let mut __d_u_1_4 = -0.0;
        let mut __d_v_1_4 = -0.0;
        let _ = ::autodiff::__private::derivative_of!(
            lotka_volterra, vjp_into(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp_into(
                p,
                u_1,
                v_1,
                __d_v0_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_u_1_4),
                    ::core::option::Option::Some(&mut __d_v_1_4),
                ),
            );
        let __d_u_1_5 = __d_u_1_3 + __d_u_1_4;
        let __d_v_1_5 = __d_v_1_3 + __d_v_1_4;
        (__d_u_1, __d_v_1) = (__d_u_1_5, __d_v_1_5);
    }
    ::autodiff::__private::add_to(&mut __d_p[5], __d_v_1);
    ::autodiff::__private::add_to(&mut __d_p[4], __d_u_1);
    __v30
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rk4_vjp(p: &[f64], steps: usize, d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let value = __rk4_vjp_into(p, steps, d_ret, &mut __grad_p);
    (value, __grad_p)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rk4_jvp(p: &[f64], steps: usize, tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    let mut __dot_p = ::autodiff::__private::tangent("p", tangent, &p);
    let u = p[4];
    let __dot_u = __dot_p[4];
    let v = p[5];
    let __dot_v = __dot_p[5];
    let mut u_1 = u;
    let mut v_1 = v;
    let mut __dot_u_1 = __dot_u;
    let mut __dot_v_1 = __dot_v;
    for __i in 0..steps {
        let (__v0, __dot_v0) = ::autodiff::__private::derivative_of!(
            lotka_volterra, jvp(_, _, _, _); through 0usize, 1usize, 2usize
        )
            .jvp(
                p,
                u_1,
                v_1,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_u_1,
                    __dot_v_1,
                ),
            );
        let k1u = __v0.0;
        let __dot_k1u = __dot_v0.0;
        let k1v = __v0.1;
        let __dot_k1v = __dot_v0.1;
        let __v1 = 0.5 * 0.01;
        let __v2 = __v1 * k1u;
        let __dot_v2 = __dot_k1u * __v1;
        let __v3 = u_1 + __v2;
        let __dot_v3 = __dot_u_1 + __dot_v2;
        let __v4 = __v1 * k1v;
        let __dot_v4 = __dot_k1v * __v1;
        let __v5 = v_1 + __v4;
        let __dot_v5 = __dot_v_1 + __dot_v4;
        let (__v6, __dot_v6) = ::autodiff::__private::derivative_of!(
            lotka_volterra, jvp(_, _, _, _); through 0usize, 1usize, 2usize
        )
            .jvp(
                p,
                __v3,
                __v5,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v3,
                    __dot_v5,
                ),
            );
        let k2u = __v6.0;
        let __dot_k2u = __dot_v6.0;
        let k2v = __v6.1;
        let __dot_k2v = __dot_v6.1;
        let __v7 = __v1 * k2u;
        let __dot_v7 = __dot_k2u * __v1;
        let __v8 = u_1 + __v7;
        let __dot_v8 = __dot_u_1 + __dot_v7;
        let __v9 = __v1 * k2v;
        let __dot_v9 = __dot_k2v * __v1;
        let __v10 = v_1 + __v9;
        let __dot_v10 = __dot_v_1 + __dot_v9;
        let (__v11, __dot_v11) = ::autodiff::__private::derivative_of!(
            lotka_volterra, jvp(_, _, _, _); through 0usize, 1usize, 2usize
        )
            .jvp(
                p,
                __v8,
                __v10,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v8,
                    __dot_v10,
                ),
            );
        let k3u = __v11.0;
        let __dot_k3u = __dot_v11.0;
        let k3v = __v11.1;
        let __dot_k3v = __dot_v11.1;
        let __v12 = 0.01 * k3u;
        let __dot_v12 = __dot_k3u * 0.01;
        let __v13 = u_1 + __v12;
        let __dot_v13 = __dot_u_1 + __dot_v12;
        let __v14 = 0.01 * k3v;
        let __dot_v14 = __dot_k3v * 0.01;
        let __v15 = v_1 + __v14;
        let __dot_v15 = __dot_v_1 + __dot_v14;
        let (__v16, __dot_v16) = ::autodiff::__private::derivative_of!(
            lotka_volterra, jvp(_, _, _, _); through 0usize, 1usize, 2usize
        )
            .jvp(
                p,
                __v13,
                __v15,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v13,
                    __dot_v15,
                ),
            );
        let k4u = __v16.0;
        let __dot_k4u = __dot_v16.0;
        let k4v = __v16.1;
        let __dot_k4v = __dot_v16.1;
        let __v17 = 0.01 / 6.0;
        let __v18 = 2.0 * k2u;
        let __dot_v18 = __dot_k2u * 2.0;
        let __v19 = k1u + __v18;
        let __dot_v19 = __dot_k1u + __dot_v18;
        let __v20 = 2.0 * k3u;
        let __dot_v20 = __dot_k3u * 2.0;
        let __v21 = __v19 + __v20;
        let __dot_v21 = __dot_v19 + __dot_v20;
        let __v22 = __v21 + k4u;
        let __dot_v22 = __dot_v21 + __dot_k4u;
        let __v23 = __v17 * __v22;
        let __dot_v23 = __dot_v22 * __v17;
        let u_2 = u_1 + __v23;
        let __dot_u_2 = __dot_u_1 + __dot_v23;
        let __v24 = 2.0 * k2v;
        let __dot_v24 = __dot_k2v * 2.0;
        let __v25 = k1v + __v24;
        let __dot_v25 = __dot_k1v + __dot_v24;
        let __v26 = 2.0 * k3v;
        let __dot_v26 = __dot_k3v * 2.0;
        let __v27 = __v25 + __v26;
        let __dot_v27 = __dot_v25 + __dot_v26;
        let __v28 = __v27 + k4v;
        let __dot_v28 = __dot_v27 + __dot_k4v;
        let __v29 = __v17 * __v28;
        let __dot_v29 = __dot_v28 * __v17;
        let v_2 = v_1 + __v29;
        let __dot_v_2 = __dot_v_1 + __dot_v29;
        (u_1, __dot_u_1, v_1, __dot_v_1) = (u_2, __dot_u_2, v_2, __dot_v_2);
    }
    let __v30 = u_1 + v_1;
    let __dot_v30 = __dot_u_1 + __dot_v_1;
    (__v30, __dot_v30)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct rk4 {}
impl ::autodiff::__private::GenericCopy for rk4 {
    type Copy = __rk4_generic;
    #[inline(always)]
    fn copy() -> __rk4_generic {
        __rk4_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rk4 {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rk4 {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp(
        self,
        p: &[f64],
        steps: usize,
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ())) {
        let (value, gradient) = rk4_vjp(p, steps, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    pub fn jvp(
        self,
        p: &[f64],
        steps: usize,
        tangents: (::std::vec::Vec<f64>, ()),
    ) -> (f64, f64) {
        let (__tangent_0, _) = tangents;
        rk4_jvp(p, steps, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out(
        self,
        p: &[f64],
        steps: usize,
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (f64, (::std::vec::Vec<f64>, ())) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = rk4_vjp(p, steps, d_ret);
        let __gradient_0 = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out(
        self,
        p: &[f64],
        steps: usize,
        tangents: (::std::vec::Vec<f64>, ()),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, _) = tangents;
        rk4_jvp(p, steps, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into(
        self,
        p: &[f64],
        steps: usize,
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>, ()),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            p.len(),
        );
        let value = __rk4_vjp_into(p, steps, d_ret, __buffer_0);
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct rk4_grad {}
impl ::autodiff::__private::GenericCopy for rk4_grad {
    type Copy = rk4_grad;
    #[inline(always)]
    fn copy() -> rk4_grad {
        rk4_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rk4_grad {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        steps: usize,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _)) = <rk4 as ::autodiff::__private::GenericCopy>::copy()
            .vjp(p, steps, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(p, steps)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct rk4_vjp {}
impl ::autodiff::__private::GenericCopy for rk4_vjp {
    type Copy = rk4_vjp;
    #[inline(always)]
    fn copy() -> rk4_vjp {
        rk4_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rk4_vjp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        steps: usize,
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _)) = <rk4 as ::autodiff::__private::GenericCopy>::copy()
            .vjp(p, steps, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(p, steps, d_ret)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct rk4_jvp {}
impl ::autodiff::__private::GenericCopy for rk4_jvp {
    type Copy = rk4_jvp;
    #[inline(always)]
    fn copy() -> rk4_jvp {
        rk4_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl rk4_jvp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        p: &[__S],
        steps: usize,
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <rk4 as ::autodiff::__private::GenericCopy>::copy()
            .jvp(p, steps, (__tangent_0, ()))
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        Self::call(p, steps, tangent)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __rk4_generic<__S: ::autodiff::__private::Float>(p: &[__S], steps: usize) -> __S {
    use ::autodiff::__private::Float as _;
    let h = ::autodiff::__private::lit::<__S>(0.01 as f64);
    let mut u = p[4];
    let mut v = p[5];
    for _ in 0..steps {
        let (k1u, k1v) = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u,
            v,
        );
        let (k2u, k2v) = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u + ::autodiff::__private::lit::<__S>(0.5 as f64) * h * k1u,
            v + ::autodiff::__private::lit::<__S>(0.5 as f64) * h * k1v,
        );
        let (k3u, k3v) = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u + ::autodiff::__private::lit::<__S>(0.5 as f64) * h * k2u,
            v + ::autodiff::__private::lit::<__S>(0.5 as f64) * h * k2v,
        );
        let (k4u, k4v) = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u + h * k3u,
            v + h * k3v,
        );
        u = u
            + (h / ::autodiff::__private::lit::<__S>(6.0 as f64)
                * (k1u + ::autodiff::__private::lit::<__S>(2.0 as f64) * k2u
                    + ::autodiff::__private::lit::<__S>(2.0 as f64) * k3u + k4u));
        v = v
            + (h / ::autodiff::__private::lit::<__S>(6.0 as f64)
                * (k1v + ::autodiff::__private::lit::<__S>(2.0 as f64) * k2v
                    + ::autodiff::__private::lit::<__S>(2.0 as f64) * k3v + k4v));
    }
    u + v
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn ____rk4_generic_vjp_into<__S: ::autodiff::__private::Float>(
    p: &[__S],
    steps: usize,
    d_ret: __S,
    grad: &mut [__S],
) -> __S {
    let __grad_p = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_u_1 = ::autodiff::__private::Tape::new();
    let mut __tape_v_1 = ::autodiff::__private::Tape::new();
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let __v0 = 0.01 as f64;
    let h = ::autodiff::__private::lit::<__S>(__v0);
    let u = p[4];
    let v = p[5];
    let mut u_1 = u;
    let mut v_1 = v;
    __tape_u_1.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0);
    __tape_v_1.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0);
    for __i in 0..steps {
        __tape_u_1.push(u_1);
        __tape_v_1.push(v_1);
        let __v1 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u_1,
            v_1,
        );
        let k1u = __v1.0;
        let k1v = __v1.1;
        let __v2 = 0.5 as f64;
        let __v3 = ::autodiff::__private::lit::<__S>(__v2);
        let __v4 = __v3 * h;
        let __v5 = __v4 * k1u;
        let __v6 = u_1 + __v5;
        let __v7 = ::autodiff::__private::lit::<__S>(__v2);
        let __v8 = __v7 * h;
        let __v9 = __v8 * k1v;
        let __v10 = v_1 + __v9;
        let __v11 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v6,
            __v10,
        );
        let k2u = __v11.0;
        let k2v = __v11.1;
        let __v12 = ::autodiff::__private::lit::<__S>(__v2);
        let __v13 = __v12 * h;
        let __v14 = __v13 * k2u;
        let __v15 = u_1 + __v14;
        let __v16 = ::autodiff::__private::lit::<__S>(__v2);
        let __v17 = __v16 * h;
        let __v18 = __v17 * k2v;
        let __v19 = v_1 + __v18;
        let __v20 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v15,
            __v19,
        );
        let k3u = __v20.0;
        let k3v = __v20.1;
        let __v21 = h * k3u;
        let __v22 = u_1 + __v21;
        let __v23 = h * k3v;
        let __v24 = v_1 + __v23;
        let __v25 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v22,
            __v24,
        );
        let k4u = __v25.0;
        let k4v = __v25.1;
        let __v26 = 6.0 as f64;
        let __v27 = ::autodiff::__private::lit::<__S>(__v26);
        let __v28 = h / __v27;
        let __v29 = 2.0 as f64;
        let __v30 = ::autodiff::__private::lit::<__S>(__v29);
        let __v31 = __v30 * k2u;
        let __v32 = k1u + __v31;
        let __v33 = ::autodiff::__private::lit::<__S>(__v29);
        let __v34 = __v33 * k3u;
        let __v35 = __v32 + __v34;
        let __v36 = __v35 + k4u;
        let __v37 = __v28 * __v36;
        let u_2 = u_1 + __v37;
        let __v38 = ::autodiff::__private::lit::<__S>(__v26);
        let __v39 = h / __v38;
        let __v40 = ::autodiff::__private::lit::<__S>(__v29);
        let __v41 = __v40 * k2v;
        let __v42 = k1v + __v41;
        let __v43 = ::autodiff::__private::lit::<__S>(__v29);
        let __v44 = __v43 * k3v;
        let __v45 = __v42 + __v44;
        let __v46 = __v45 + k4v;
        let __v47 = __v39 * __v46;
        let v_2 = v_1 + __v47;
        (u_1, v_1) = (u_2, v_2);
    }
    let __v48 = u_1 + v_1;
    let mut __tape_u_1 = __tape_u_1.reader();
    let mut __tape_v_1 = __tape_v_1.reader();
    let mut __d_u_1 = d_ret;
    let mut __d_v_1 = d_ret;
    for __i in (0..steps).rev() {
        let u_1 = __tape_u_1.pop();
        let v_1 = __tape_v_1.pop();
        let __v1 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            u_1,
            v_1,
        );
        let k1u = __v1.0;
        let k1v = __v1.1;
        let __v2 = 0.5 as f64;
        let __v3 = ::autodiff::__private::lit::<__S>(__v2);
        let __v4 = __v3 * h;
        let __v5 = __v4 * k1u;
        let __v6 = u_1 + __v5;
        let __v7 = ::autodiff::__private::lit::<__S>(__v2);
        let __v8 = __v7 * h;
        let __v9 = __v8 * k1v;
        let __v10 = v_1 + __v9;
        let __v11 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v6,
            __v10,
        );
        let k2u = __v11.0;
        let k2v = __v11.1;
        let __v12 = ::autodiff::__private::lit::<__S>(__v2);
        let __v13 = __v12 * h;
        let __v14 = __v13 * k2u;
        let __v15 = u_1 + __v14;
        let __v16 = ::autodiff::__private::lit::<__S>(__v2);
        let __v17 = __v16 * h;
        let __v18 = __v17 * k2v;
        let __v19 = v_1 + __v18;
        let __v20 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v15,
            __v19,
        );
        let k3u = __v20.0;
        let k3v = __v20.1;
        let __v21 = h * k3u;
        let __v22 = u_1 + __v21;
        let __v23 = h * k3v;
        let __v24 = v_1 + __v23;
        let __v25 = <lotka_volterra as ::autodiff::__private::GenericCopy>::Copy::call(
            p,
            __v22,
            __v24,
        );
        let __v26 = 6.0 as f64;
        let __v27 = ::autodiff::__private::lit::<__S>(__v26);
        let __v28 = h / __v27;
        let __v29 = 2.0 as f64;
        let __v30 = ::autodiff::__private::lit::<__S>(__v29);
        let __v33 = ::autodiff::__private::lit::<__S>(__v29);
        let __v38 = ::autodiff::__private::lit::<__S>(__v26);
        let __v39 = h / __v38;
        let __v40 = ::autodiff::__private::lit::<__S>(__v29);
        let __v43 = ::autodiff::__private::lit::<__S>(__v29);
        let __d_v46 = __d_v_1 * __v39;
        let __d_k3v = __d_v46 * __v43;
        let __d_k2v = __d_v46 * __v40;
        let __d_v36 = __d_u_1 * __v28;
        let __d_k3u = __d_v36 * __v33;
        let __d_k2u = __d_v36 * __v30;
        let __d_v25_1 = (__d_v36, __d_v46);
        let mut __d_v22 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __d_v24 = <__S as ::autodiff::__private::Zero>::zero();
        let _ = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(
                p,
                __v22,
                __v24,
                __d_v25_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v22),
                    ::core::option::Option::Some(&mut __d_v24),
                ),
            );
        let __d_v_1_1 = __d_v_1 + __d_v24;
        let __d_k3v_1 = __d_k3v + __d_v24 * h;
        let __d_u_1_1 = __d_u_1 + __d_v22;
        let __d_k3u_1 = __d_k3u + __d_v22 * h;
        let __d_v20_1 = (__d_k3u_1, __d_k3v_1);
        let mut __d_v15 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __d_v19 = <__S as ::autodiff::__private::Zero>::zero();
        let _ = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(
                p,
                __v15,
                __v19,
                __d_v20_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v15),
                    ::core::option::Option::Some(&mut __d_v19),
                ),
            );
        let __d_v_1_2 = __d_v_1_1 + __d_v19;
        let __d_k2v_1 = __d_k2v + __d_v19 * __v17;
        let __d_u_1_2 = __d_u_1_1 + __d_v15;
        let __d_k2u_1 = __d_k2u + __d_v15 * __v13;
        let __d_v11_1 = (__d_k2u_1, __d_k2v_1);
        let mut __d_v6 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __d_v10 = <__S as ::autodiff::__private::Zero>::zero();
        let _ = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(
                p,
                __v6,
                __v10,
                __d_v11_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_v6),
                    ::core::option::Option::Some(&mut __d_v10),
                ),
            );
        let __d_v_1_3 = __d_v_1_2 + __d_v10;
        let __d_k1v = __d_v46 + __d_v10 * __v8;
        let __d_u_1_3 = __d_u_1_2 + __d_v6;
        let __d_k1u = __d_v36 + __d_v6 * __v4;
        let __d_v1_1 = (__d_k1u, __d_k1v);
        let mut __d_u_1_4 = <__S as ::autodiff::__private::Zero>::zero();
        let mut __d_v_1_4 = <__S as ::autodiff::__private::Zero>::zero();
        let _ = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(
                p,
                u_1,
                v_1,
                __d_v1_1,
                (
                    ::core::option::Option::Some(&mut __d_p[..]),
                    ::core::option::Option::Some(&mut __d_u_1_4),
                    ::core::option::Option::Some(&mut __d_v_1_4),
                ),
            );
        let __d_u_1_5 = __d_u_1_3 + __d_u_1_4;
        let __d_v_1_5 = __d_v_1_3 + __d_v_1_4;
        (__d_u_1, __d_v_1) = (__d_u_1_5, __d_v_1_5);
    }
    ::autodiff::__private::add_to(&mut __d_p[5], __d_v_1);
    ::autodiff::__private::add_to(&mut __d_p[4], __d_u_1);
    __v48
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __rk4_generic_vjp<__S: ::autodiff::__private::Float>(
    p: &[__S],
    steps: usize,
    d_ret: __S,
) -> (__S, ::std::vec::Vec<__S>) {
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let value = ____rk4_generic_vjp_into(p, steps, d_ret, &mut __grad_p);
    (value, __grad_p)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __rk4_generic_jvp<__S: ::autodiff::__private::Float>(
    p: &[__S],
    steps: usize,
    tangent: ::std::vec::Vec<__S>,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let mut __dot_p = ::autodiff::__private::tangent("p", tangent, &p);
    let __v0 = 0.01 as f64;
    let h = ::autodiff::__private::lit::<__S>(__v0);
    let u = p[4];
    let __dot_u = __dot_p[4];
    let v = p[5];
    let __dot_v = __dot_p[5];
    let mut u_1 = u;
    let mut v_1 = v;
    let mut __dot_u_1 = __dot_u;
    let mut __dot_v_1 = __dot_v;
    for __i in 0..steps {
        let (__v1, __dot_v1) = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                p,
                u_1,
                v_1,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_u_1,
                    __dot_v_1,
                ),
            );
        let k1u = __v1.0;
        let __dot_k1u = __dot_v1.0;
        let k1v = __v1.1;
        let __dot_k1v = __dot_v1.1;
        let __v2 = 0.5 as f64;
        let __v3 = ::autodiff::__private::lit::<__S>(__v2);
        let __v4 = __v3 * h;
        let __v5 = __v4 * k1u;
        let __dot_v5 = __dot_k1u * __v4;
        let __v6 = u_1 + __v5;
        let __dot_v6 = __dot_u_1 + __dot_v5;
        let __v7 = ::autodiff::__private::lit::<__S>(__v2);
        let __v8 = __v7 * h;
        let __v9 = __v8 * k1v;
        let __dot_v9 = __dot_k1v * __v8;
        let __v10 = v_1 + __v9;
        let __dot_v10 = __dot_v_1 + __dot_v9;
        let (__v11, __dot_v11) = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                p,
                __v6,
                __v10,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v6,
                    __dot_v10,
                ),
            );
        let k2u = __v11.0;
        let __dot_k2u = __dot_v11.0;
        let k2v = __v11.1;
        let __dot_k2v = __dot_v11.1;
        let __v12 = ::autodiff::__private::lit::<__S>(__v2);
        let __v13 = __v12 * h;
        let __v14 = __v13 * k2u;
        let __dot_v14 = __dot_k2u * __v13;
        let __v15 = u_1 + __v14;
        let __dot_v15 = __dot_u_1 + __dot_v14;
        let __v16 = ::autodiff::__private::lit::<__S>(__v2);
        let __v17 = __v16 * h;
        let __v18 = __v17 * k2v;
        let __dot_v18 = __dot_k2v * __v17;
        let __v19 = v_1 + __v18;
        let __dot_v19 = __dot_v_1 + __dot_v18;
        let (__v20, __dot_v20) = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                p,
                __v15,
                __v19,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v15,
                    __dot_v19,
                ),
            );
        let k3u = __v20.0;
        let __dot_k3u = __dot_v20.0;
        let k3v = __v20.1;
        let __dot_k3v = __dot_v20.1;
        let __v21 = h * k3u;
        let __dot_v21 = __dot_k3u * h;
        let __v22 = u_1 + __v21;
        let __dot_v22 = __dot_u_1 + __dot_v21;
        let __v23 = h * k3v;
        let __dot_v23 = __dot_k3v * h;
        let __v24 = v_1 + __v23;
        let __dot_v24 = __dot_v_1 + __dot_v23;
        let (__v25, __dot_v25) = <lotka_volterra as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                p,
                __v22,
                __v24,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    __dot_v22,
                    __dot_v24,
                ),
            );
        let k4u = __v25.0;
        let __dot_k4u = __dot_v25.0;
        let k4v = __v25.1;
        let __dot_k4v = __dot_v25.1;
        let __v26 = 6.0 as f64;
        let __v27 = ::autodiff::__private::lit::<__S>(__v26);
        let __v28 = h / __v27;
        let __v29 = 2.0 as f64;
        let __v30 = ::autodiff::__private::lit::<__S>(__v29);
        let __v31 = __v30 * k2u;
        let __dot_v31 = __dot_k2u * __v30;
        let __v32 = k1u + __v31;
        let __dot_v32 = __dot_k1u + __dot_v31;
        let __v33 = ::autodiff::__private::lit::<__S>(__v29);
        let __v34 = __v33 * k3u;
        let __dot_v34 = __dot_k3u * __v33;
        let __v35 = __v32 + __v34;
        let __dot_v35 = __dot_v32 + __dot_v34;
        let __v36 = __v35 + k4u;
        let __dot_v36 = __dot_v35 + __dot_k4u;
        let __v37 = __v28 * __v36;
        let __dot_v37 = __dot_v36 * __v28;
        let u_2 = u_1 + __v37;
        let __dot_u_2 = __dot_u_1 + __dot_v37;
        let __v38 = ::autodiff::__private::lit::<__S>(__v26);
        let __v39 = h / __v38;
        let __v40 = ::autodiff::__private::lit::<__S>(__v29);
        let __v41 = __v40 * k2v;
        let __dot_v41 = __dot_k2v * __v40;
        let __v42 = k1v + __v41;
        let __dot_v42 = __dot_k1v + __dot_v41;
        let __v43 = ::autodiff::__private::lit::<__S>(__v29);
        let __v44 = __v43 * k3v;
        let __dot_v44 = __dot_k3v * __v43;
        let __v45 = __v42 + __v44;
        let __dot_v45 = __dot_v42 + __dot_v44;
        let __v46 = __v45 + k4v;
        let __dot_v46 = __dot_v45 + __dot_k4v;
        let __v47 = __v39 * __v46;
        let __dot_v47 = __dot_v46 * __v39;
        let v_2 = v_1 + __v47;
        let __dot_v_2 = __dot_v_1 + __dot_v47;
        (u_1, __dot_u_1, v_1, __dot_v_1) = (u_2, __dot_u_2, v_2, __dot_v_2);
    }
    let __v48 = u_1 + v_1;
    let __dot_v48 = __dot_u_1 + __dot_v_1;
    (__v48, __dot_v48)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct __rk4_generic {}
impl ::autodiff::__private::GenericCopy for __rk4_generic {
    type Copy = __rk4_generic;
    #[inline(always)]
    fn copy() -> __rk4_generic {
        __rk4_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __rk4_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __rk4_generic {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(p: &[__S], steps: usize) -> __S {
        __rk4_generic(p, steps)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
    ) -> __S {
        __rk4_generic(p, steps)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ())) {
        let (value, gradient) = __rk4_generic_vjp(p, steps, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    pub fn jvp<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        tangents: (::std::vec::Vec<__S>, ()),
    ) -> (__S, __S) {
        let (__tangent_0, _) = tangents;
        __rk4_generic_jvp(p, steps, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (__S, (::std::vec::Vec<__S>, ())) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __rk4_generic_vjp(p, steps, d_ret);
        let __gradient_0 = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        tangents: (::std::vec::Vec<__S>, ()),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, _) = tangents;
        __rk4_generic_jvp(p, steps, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        p: &[__S],
        steps: usize,
        d_ret: __S,
        grads: (::core::option::Option<&mut [__S]>, ()),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            p.len(),
        );
        let value = ____rk4_generic_vjp_into(p, steps, d_ret, __buffer_0);
        value
    }
}
