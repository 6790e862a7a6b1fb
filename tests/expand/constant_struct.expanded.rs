use autodiff::{differentiable, Differentiable};
#[derive(Clone, Debug, Differentiable)]
struct Cfg {
    b: f64,
    w: Vec<f64>,
    #[no_grad]
    n: usize,
}
fn reads(p: &Cfg, x: &[f64]) -> f64 {
    let mut s = p.b * x[0];
    for i in 0..p.n {
        s += p.w[i] * x[i] * x[i];
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn reads_grad(p: &Cfg, x: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    reads_vjp(p, x, 1.0)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn reads_grad_into(p: &Cfg, x: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    let d_ret = 1.0;
    let __p_b = p.b;
    let __p_n = p.n;
    let __p_w = &p.w;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = x[0];
    let s = __p_b * __v0;
    let mut __d_s_1 = d_ret;
    let mut s_1 = s;
    let ____p_w_view: &[_] = &__p_w[..__p_n];
    let __x_view: &[_] = &x[..__p_n];
    for __i in 0..__p_n {
        let __v1 = ____p_w_view[__i];
        let __v2 = __x_view[__i];
        let __v3 = __v1 * __v2;
        let __v4 = __v3 * __v2;
        let s_2 = s_1 + __v4;
        let __d_v3 = __d_s_1 * __v2;
        let __d_v2 = __d_s_1 * __v3;
        let __d_v2_1 = __d_v2 + __d_v3 * __v1;
        ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2_1);
        s_1 = s_2;
    }
    let __d_v0 = __d_s_1 * __p_b;
    ::autodiff::__private::add_to(&mut __d_x[0], __d_v0);
    s_1
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn reads_vjp(p: &Cfg, x: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let __value = {
        let __grad_x = &mut __grad_x;
        let __p_b = p.b;
        let __p_n = p.n;
        let __p_w = &p.w;
        let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
        let __v0 = x[0];
        let s = __p_b * __v0;
        let mut __d_s_1 = d_ret;
        let mut s_1 = s;
        let ____p_w_view: &[_] = &__p_w[..__p_n];
        let __x_view: &[_] = &x[..__p_n];
        for __i in 0..__p_n {
            let __v1 = ____p_w_view[__i];
            let __v2 = __x_view[__i];
            let __v3 = __v1 * __v2;
            let __v4 = __v3 * __v2;
            let s_2 = s_1 + __v4;
            let __d_v3 = __d_s_1 * __v2;
            let __d_v2 = __d_s_1 * __v3;
            let __d_v2_1 = __d_v2 + __d_v3 * __v1;
            ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2_1);
            s_1 = s_2;
        }
        let __d_v0 = __d_s_1 * __p_b;
        ::autodiff::__private::add_to(&mut __d_x[0], __d_v0);
        s_1
    };
    (__value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn reads_jvp(p: &Cfg, x: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    let __p_b = p.b;
    let __p_n = p.n;
    let __p_w = &p.w;
    let __tangent_1 = tangent;
    let __inner_tangent = __tangent_1;
    let mut __dot_x = ::autodiff::__private::tangent("x", __inner_tangent, &x);
    let __v0 = x[0];
    let __dot_v0 = __dot_x[0];
    let s = __p_b * __v0;
    let __dot_s = __dot_v0 * __p_b;
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    let ____p_w_view: &[_] = &__p_w[..__p_n];
    let __x_view: &[_] = &x[..__p_n];
    let __dot_x_view: &[_] = &__dot_x[..__p_n];
    for __i in 0..__p_n {
        let __v1 = ____p_w_view[__i];
        let __v2 = __x_view[__i];
        let __dot_v2 = __dot_x_view[__i];
        let __v3 = __v1 * __v2;
        let __dot_v3 = __dot_v2 * __v1;
        let __v4 = __v3 * __v2;
        let __dot_v4 = __dot_v3 * __v2 + __dot_v2 * __v3;
        let s_2 = s_1 + __v4;
        let __dot_s_2 = __dot_s_1 + __dot_v4;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct reads {}
impl ::autodiff::__private::GenericCopy for reads {
    type Copy = __reads_generic;
    #[inline(always)]
    fn copy() -> __reads_generic {
        __reads_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for reads {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl reads {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, p: &Cfg, x: &[f64], d_ret: f64) -> (f64, ((), ::std::vec::Vec<f64>)) {
        let (value, gradient) = reads_vjp(p, x, d_ret);
        let __gradient_0 = gradient;
        (value, ((), __gradient_0))
    }
    #[inline]
    fn jvp(
        self,
        p: &Cfg,
        x: &[f64],
        tangents: ((), ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        let (_, __tangent_1) = tangents;
        reads_jvp(p, x, __tangent_1)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        p: &Cfg,
        x: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
        ),
    ) -> (f64, ((), ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = reads_vjp(p, x, d_ret);
        let __gradient_0 = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, ()),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_0),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        p: &Cfg,
        x: &[f64],
        tangents: ((), ::std::vec::Vec<f64>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (_, __tangent_1) = tangents;
        reads_jvp(p, x, __tangent_1)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        p: &Cfg,
        x: &[f64],
        d_ret: f64,
        grads: ((), ::core::option::Option<&mut [f64]>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = reads_vjp(p, x, d_ret);
        let __gradient_1 = gradient;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __reads_generic<__S: ::autodiff::__private::Float>(p: &Cfg, x: &[__S]) -> __S {
    let __p_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.b));
    let __p_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.n));
    let __p_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&p.w));
    let __p_w = &__p_w_lifted;
    {
        use ::autodiff::__private::Float as _;
        let mut s = __p_b * x[0];
        for i in 0..__p_n {
            s = s + ((*__p_w)[i] * x[i] * x[i]);
        }
        s
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __reads_generic_vjp<__S: ::autodiff::__private::Float>(
    p: &Cfg,
    x: &[__S],
    d_ret: __S,
) -> (__S, ::std::vec::Vec<__S>) {
    let __p_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.b));
    let __p_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.n));
    let __p_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&p.w));
    let __p_w = &__p_w_lifted;
    let (__value, __gradient) = {
        use ::autodiff::__private::Float as _;
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let __v0 = x[0];
        let s = __p_b * __v0;
        let mut __d_s_1 = d_ret;
        let mut s_1 = s;
        let ____p_w_view: &[_] = &__p_w[..__p_n];
        let __x_view: &[_] = &x[..__p_n];
        for __i in 0..__p_n {
            let __v1 = ____p_w_view[__i];
            let __v2 = __x_view[__i];
            let __v3 = __v1 * __v2;
            let __v4 = __v3 * __v2;
            let s_2 = s_1 + __v4;
            let __d_v3 = __d_s_1 * __v2;
            let __d_v2 = __d_s_1 * __v3;
            let __d_v2_1 = __d_v2 + __d_v3 * __v1;
            ::autodiff::__private::add_to(&mut __d_x[__i], __d_v2_1);
            s_1 = s_2;
        }
        let __d_v0 = __d_s_1 * __p_b;
        ::autodiff::__private::add_to(&mut __d_x[0], __d_v0);
        (s_1, __d_x)
    };
    let __gradient_4 = __gradient;
    (__value, __gradient_4)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __reads_generic_jvp<__S: ::autodiff::__private::Float>(
    p: &Cfg,
    x: &[__S],
    tangent: ::std::vec::Vec<__S>,
) -> (__S, __S) {
    let __p_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.b));
    let __p_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&p.n));
    let __p_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&p.w));
    let __p_w = &__p_w_lifted;
    let __tangent_1 = tangent;
    let __inner_tangent = __tangent_1;
    use ::autodiff::__private::Float as _;
    let mut __dot_x = ::autodiff::__private::tangent("x", __inner_tangent, &x);
    let __v0 = x[0];
    let __dot_v0 = __dot_x[0];
    let s = __p_b * __v0;
    let __dot_s = __dot_v0 * __p_b;
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    let ____p_w_view: &[_] = &__p_w[..__p_n];
    let __x_view: &[_] = &x[..__p_n];
    let __dot_x_view: &[_] = &__dot_x[..__p_n];
    for __i in 0..__p_n {
        let __v1 = ____p_w_view[__i];
        let __v2 = __x_view[__i];
        let __dot_v2 = __dot_x_view[__i];
        let __v3 = __v1 * __v2;
        let __dot_v3 = __dot_v2 * __v1;
        let __v4 = __v3 * __v2;
        let __dot_v4 = __dot_v3 * __v2 + __dot_v2 * __v3;
        let s_2 = s_1 + __v4;
        let __dot_s_2 = __dot_s_1 + __dot_v4;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __reads_generic {}
impl ::autodiff::__private::GenericCopy for __reads_generic {
    type Copy = __reads_generic;
    #[inline(always)]
    fn copy() -> __reads_generic {
        __reads_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __reads_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __reads_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(p: &Cfg, x: &[__S]) -> __S {
        __reads_generic(p, x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, p: &Cfg, x: &[__S]) -> __S {
        __reads_generic(p, x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        p: &Cfg,
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ((), ::std::vec::Vec<__S>)) {
        let (value, gradient) = __reads_generic_vjp(p, x, d_ret);
        let __gradient_0 = gradient;
        (value, ((), __gradient_0))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        p: &Cfg,
        x: &[__S],
        tangents: ((), ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        let (_, __tangent_1) = tangents;
        __reads_generic_jvp(p, x, __tangent_1)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &Cfg,
        x: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
        ),
    ) -> (__S, ((), ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __reads_generic_vjp(p, x, d_ret);
        let __gradient_0 = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, ()),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_0),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        p: &Cfg,
        x: &[__S],
        tangents: ((), ::std::vec::Vec<__S>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (_, __tangent_1) = tangents;
        __reads_generic_jvp(p, x, __tangent_1)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        p: &Cfg,
        x: &[__S],
        d_ret: __S,
        grads: ((), ::core::option::Option<&mut [__S]>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = __reads_generic_vjp(p, x, d_ret);
        let __gradient_1 = gradient;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[::autodiff::differentiable(order = 2, wrt(x))]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __reads_fields(
    __p_b: f64,
    __p_n: <Cfg as ::autodiff::__private::FieldType<12638194897137039473u64>>::Type,
    __p_w: &[f64],
    x: &[f64],
) -> f64 {
    let mut s = __p_b * x[0];
    for i in 0..__p_n {
        s += __p_w[i] * x[i] * x[i];
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn reads_hvp(
    p: &Cfg,
    x: &[f64],
    v: ::std::vec::Vec<f64>,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>) {
    let __direction_1 = v;
    let __p_b = p.b;
    let __p_n = p.n;
    let __p_w = &p.w;
    let (__value, __gradient, __product) = __reads_fields_hvp(
        __p_b,
        __p_n,
        &__p_w[..],
        x,
        __direction_1,
    );
    (
        __value,
        {
            let __gradient_0 = __gradient;
            __gradient_0
        },
        {
            let __product_0 = __product;
            __product_0
        },
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn reads_hessian(
    p: &Cfg,
    x: &[f64],
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let (value, gradient) = reads_grad(p, x);
    let __n: usize = 0 + x.len();
    let mut __hessian = ::std::vec::Vec::with_capacity(__n);
    for __i in 0..__n {
        let mut __offset = 0usize;
        let (_, _, __hv_0) = reads_hvp(
            p,
            x,
            {
                let __unit: ::std::vec::Vec<f64> = (0..x.len())
                    .map(|__j| {
                        if __i == __offset + __j {
                            <f64 as ::autodiff::__private::One>::one()
                        } else {
                            <f64 as ::autodiff::__private::Zero>::zero()
                        }
                    })
                    .collect();
                __offset += x.len();
                __unit
            },
        );
        let mut __row = ::std::vec::Vec::with_capacity(__n);
        __row.extend_from_slice(&__hv_0[..]);
        __hessian.push(__row);
    }
    (value, gradient, ::autodiff::__private::hessian_from_columns(&__hessian))
}
#[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
#[inline]
fn __reads_whole(
    p: &<Cfg as ::autodiff::__private::Itself>::Type,
    __p_values: &[f64],
    x: &[f64],
) -> f64 {
    let __p_b = p.b;
    let __p_n = p.n;
    let __p_w = &p.w;
    __reads_fields(__p_b, __p_n, &__p_w[..], x)
}
#[doc(hidden)]
#[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
#[allow(non_camel_case_types)]
struct __reads_whole {}
#[doc(hidden)]
#[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
impl __reads_whole {
    #[inline]
    fn vjp_into(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[f64],
        x: &[f64],
        d_ret: f64,
        grads: (
            (),
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
        ),
    ) -> f64 {
        let (_, _, __slot_x) = grads;
        let __p_b = p.b;
        let __p_n = p.n;
        let __p_w = &p.w;
        __reads_fields {}
            .vjp_into(
                __p_b,
                __p_n,
                &__p_w[..],
                x,
                d_ret,
                (
                    ::core::default::Default::default(),
                    ::core::default::Default::default(),
                    ::core::default::Default::default(),
                    __slot_x,
                ),
            )
    }
    #[inline]
    fn jvp(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[f64],
        x: &[f64],
        tangents: ((), ::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        let (_, _, __slot_x) = tangents;
        let __p_b = p.b;
        let __p_n = p.n;
        let __p_w = &p.w;
        __reads_fields {}
            .jvp(
                __p_b,
                __p_n,
                &__p_w[..],
                x,
                (
                    <f64 as ::autodiff::__private::Zero>::zero(),
                    ::core::default::Default::default(),
                    ::autodiff::__private::zeros_like(&__p_w[..]),
                    __slot_x,
                ),
            )
    }
    #[inline]
    fn vjp(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[f64],
        x: &[f64],
        d_ret: f64,
    ) -> (f64, ((), ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let __p_b = p.b;
        let __p_n = p.n;
        let __p_w = &p.w;
        let (__value, __cotangents) = __reads_fields {}
            .vjp(__p_b, __p_n, &__p_w[..], x, d_ret);
        let (_, _, _, __slot_x) = __cotangents;
        (__value, ((), ::autodiff::__private::zeros_like(&__p_values[..]), __slot_x))
    }
}
#[doc(hidden)]
#[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
#[allow(non_camel_case_types)]
struct ____reads_whole_generic {}
#[doc(hidden)]
#[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
impl ____reads_whole_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[__S],
        x: &[__S],
    ) -> __S {
        let __p_b = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.b));
        let __p_n = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.n));
        let __p_w_lifted = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.w));
        let __p_w = &__p_w_lifted;
        <__reads_fields as ::autodiff::__private::GenericCopy>::Copy::call(
            __p_b,
            __p_n,
            &__p_w[..],
            x,
        )
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[__S],
        x: &[__S],
    ) -> __S {
        Self::call(p, __p_values, x)
    }
    #[inline]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[__S],
        x: &[__S],
        d_ret: __S,
        grads: (
            (),
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
        ),
    ) -> __S {
        let (_, _, __slot_x) = grads;
        let __p_b = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.b));
        let __p_n = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.n));
        let __p_w_lifted = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.w));
        let __p_w = &__p_w_lifted;
        <__reads_fields as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(
                __p_b,
                __p_n,
                &__p_w[..],
                x,
                d_ret,
                (
                    ::core::default::Default::default(),
                    ::core::default::Default::default(),
                    ::core::default::Default::default(),
                    __slot_x,
                ),
            )
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[__S],
        x: &[__S],
        tangents: ((), ::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        let (_, _, __slot_x) = tangents;
        let __p_b = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.b));
        let __p_n = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.n));
        let __p_w_lifted = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.w));
        let __p_w = &__p_w_lifted;
        <__reads_fields as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                __p_b,
                __p_n,
                &__p_w[..],
                x,
                (
                    <__S as ::autodiff::__private::Zero>::zero(),
                    ::core::default::Default::default(),
                    ::autodiff::__private::zeros_like(&__p_w[..]),
                    __slot_x,
                ),
            )
    }
    #[inline]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        p: &<Cfg as ::autodiff::__private::Itself>::Type,
        __p_values: &[__S],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ((), ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let __p_b = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.b));
        let __p_n = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.n));
        let __p_w_lifted = ::autodiff::__private::lift::<
            __S,
            _,
        >(::core::clone::Clone::clone(&p.w));
        let __p_w = &__p_w_lifted;
        let (__value, __cotangents) = <__reads_fields as ::autodiff::__private::GenericCopy>::copy()
            .vjp(__p_b, __p_n, &__p_w[..], x, d_ret);
        let (_, _, _, __slot_x) = __cotangents;
        (__value, ((), ::autodiff::__private::zeros_like(&__p_values[..]), __slot_x))
    }
}
impl ::autodiff::__private::GenericCopy for __reads_whole {
    type Copy = ____reads_whole_generic;
    #[inline(always)]
    fn copy() -> ____reads_whole_generic {
        ____reads_whole_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __reads_whole {}
#[::autodiff::differentiable(wrt(__pair_value_1), __struct_whole)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
#[inline(always)]
fn __reads_pairs(
    __p_primal: &<Cfg as ::autodiff::__private::Itself>::Type,
    __p_values: &[f64],
    __pair_unit_1: (),
    __pair_value_1: &[f64],
) -> f64 {
    __reads_whole(__p_primal, __p_values, __pair_value_1)
}
