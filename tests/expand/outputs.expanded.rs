use autodiff::differentiable;
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __rhs_vjp_into(
    y: &[f64],
    p: &[f64],
    dydt: &mut [f64],
    d_ret: (),
    d_dydt: ::core::option::Option<&[f64]>,
    grad: (&mut [f64], &mut [f64]),
) -> () {
    let (__grad_y, __grad_p) = grad;
    let _ = d_ret;
    let mut __d_y = ::autodiff::__private::gradient_buffer("y", __grad_y, &y);
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let mut __d_dydt = ::autodiff::__private::output_cotangent(
        "dydt",
        d_dydt,
        &dydt[..],
    );
    let __v0 = p[0];
    let __v1 = y[0];
    let __v2 = __v0 * __v1;
    let __v3 = y[1];
    let __v4 = __v1 * __v3;
    let __v5 = __v2 - __v4;
    dydt[0] = __v5;
    let __v6 = p[1];
    let __v7 = __v6 * __v3;
    let __v8 = __v4 - __v7;
    dydt[1] = __v8;
    let __d_v8 = __d_dydt[1];
    __d_dydt[1] = ::autodiff::__private::Zero::zero();
    let __d_v7 = -__d_v8;
    let __d_v6 = __d_v7 * __v3;
    let __d_v3 = __d_v7 * __v6;
    ::autodiff::__private::add_to(&mut __d_p[1], __d_v6);
    let __d_v5 = __d_dydt[0];
    __d_dydt[0] = ::autodiff::__private::Zero::zero();
    let __d_v4 = __d_v8 - __d_v5;
    let __d_v1 = __d_v4 * __v3;
    let __d_v3_1 = __d_v3 + __d_v4 * __v1;
    ::autodiff::__private::add_to(&mut __d_y[1], __d_v3_1);
    let __d_v0 = __d_v5 * __v1;
    let __d_v1_1 = __d_v1 + __d_v5 * __v0;
    ::autodiff::__private::add_to(&mut __d_y[0], __d_v1_1);
    ::autodiff::__private::add_to(&mut __d_p[0], __d_v0);
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rhs_vjp(
    y: &[f64],
    p: &[f64],
    dydt: &mut [f64],
    d_dydt: &[f64],
) -> (::std::vec::Vec<f64>, ::std::vec::Vec<f64>) {
    let mut __grad_y = ::autodiff::__private::zeros_like(&y[..]);
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    __rhs_vjp_into(
        y,
        p,
        dydt,
        (),
        ::core::option::Option::Some(&d_dydt[..]),
        (&mut __grad_y, &mut __grad_p),
    );
    (__grad_y, __grad_p)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rhs_jvp(
    y: &[f64],
    p: &[f64],
    dydt: &mut [f64],
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    d_dydt: &mut [f64],
) -> () {
    let (__dot_y, __dot_p) = tangent;
    let mut __dot_y = ::autodiff::__private::tangent("y", __dot_y, &y);
    let mut __dot_p = ::autodiff::__private::tangent("p", __dot_p, &p);
    let mut __dot_dydt = ::autodiff::__private::output_tangent("dydt", d_dydt, &dydt);
    ::autodiff::__private::clear(&mut __dot_dydt[..]);
    let __v0 = p[0];
    let __dot_v0 = __dot_p[0];
    let __v1 = y[0];
    let __dot_v1 = __dot_y[0];
    let __v2 = __v0 * __v1;
    let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
    let __v3 = y[1];
    let __dot_v3 = __dot_y[1];
    let __v4 = __v1 * __v3;
    let __dot_v4 = __dot_v1 * __v3 + __dot_v3 * __v1;
    let __v5 = __v2 - __v4;
    let __dot_v5 = __dot_v2 - __dot_v4;
    dydt[0] = __v5;
    __dot_dydt[0] = __dot_v5;
    let __v6 = p[1];
    let __dot_v6 = __dot_p[1];
    let __v7 = __v6 * __v3;
    let __dot_v7 = __dot_v6 * __v3 + __dot_v3 * __v6;
    let __v8 = __v4 - __v7;
    let __dot_v8 = __dot_v4 - __dot_v7;
    dydt[1] = __v8;
    __dot_dydt[1] = __dot_v8;
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn rhs_jacobian(
    y: &[f64],
    p: &[f64],
    dydt: &mut [f64],
) -> ::std::vec::Vec<::std::vec::Vec<f64>> {
    let __incoming = ::autodiff::__private::snapshot(&*dydt);
    let __value = ::autodiff::__private::snapshot(&*dydt);
    let __rows = __value.len();
    let __columns = 0usize + y.len() + p.len();
    let mut __jacobian = ::std::vec::Vec::with_capacity(__rows);
    if __rows <= __columns {
        for __i in 0..__rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&__value);
            __d_ret[__i] = <f64 as ::autodiff::__private::One>::one();
            ::autodiff::__private::copy_into("dydt", &mut dydt[..], &__incoming[..]);
            let (__part_0, __part_1) = rhs_vjp(y, p, &mut *dydt, &__d_ret);
            let mut __row = ::std::vec::Vec::with_capacity(__columns);
            __row.extend_from_slice(&__part_0[..]);
            __row.extend_from_slice(&__part_1[..]);
            __jacobian.push(__row);
        }
    } else {
        __jacobian = ::std::vec![
            ::std::vec![< f64 as ::autodiff::__private::Zero > ::zero(); __columns];
            __rows
        ];
        for __j in 0..__columns {
            ::autodiff::__private::copy_into("dydt", &mut dydt[..], &__incoming[..]);
            let __tangent = (
                {
                    let mut __t = ::autodiff::__private::zeros_like(&y);
                    if __j >= 0usize && __j < 0usize + y.len() {
                        __t[__j - 0usize] = <f64 as ::autodiff::__private::One>::one();
                    }
                    __t
                },
                {
                    let mut __t = ::autodiff::__private::zeros_like(&p);
                    if __j >= (0usize + y.len()) && __j < (0usize + y.len()) + p.len() {
                        __t[__j - (0usize + y.len())] = <f64 as ::autodiff::__private::One>::one();
                    }
                    __t
                },
            );
            let mut __column = ::autodiff::__private::zeros_like(&__value);
            rhs_jvp(y, p, &mut *dydt, __tangent, &mut __column);
            for (__i, __entry) in __column.iter().enumerate() {
                __jacobian[__i][__j] = *__entry;
            }
        }
    }
    __jacobian
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rhs {}
impl ::autodiff::__private::GenericCopy for rhs {
    type Copy = __rhs_generic;
    #[inline(always)]
    fn copy() -> __rhs_generic {
        __rhs_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rhs {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rhs {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        y: &[f64],
        p: &[f64],
        dydt: &mut [f64],
        d_ret: ::core::option::Option<()>,
        d_dydt: &[f64],
    ) -> ((), (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __rhs_generic::__vjp_all(
            y,
            p,
            dydt,
            d_ret,
            ::core::option::Option::Some(&d_dydt[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2))
    }
    #[inline]
    fn jvp(
        self,
        y: &[f64],
        p: &[f64],
        dydt: &mut [f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_dydt: &mut [f64],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            __rhs_generic::__jvp_all(
                y,
                p,
                dydt,
                (__tangent_0, __tangent_1, __tangent_2),
                d_dydt,
            );
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        y: &[f64],
        p: &[f64],
        dydt: &mut [f64],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            ::autodiff::__private::Passed<&[f64]>,
        ),
    ) -> ((), (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_dydt = __after_2.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __rhs_generic::__vjp_all(
            y,
            p,
            dydt,
            d_ret,
            ::core::option::Option::Some(&d_dydt[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                __gradient_2,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        y: &[f64],
        p: &[f64],
        dydt: &mut [f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            ::autodiff::__private::Passed<&mut [f64]>,
        ),
    ) -> ((), ()) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_dydt: &mut [f64] = ::core::convert::TryInto::try_into(__after_2.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            __rhs_generic::__jvp_all(
                y,
                p,
                dydt,
                (__tangent_0, __tangent_1, __tangent_2),
                d_dydt,
            );
            ((), ())
        }
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __rhs_generic<__S: ::autodiff::__private::Float>(
    y: &[__S],
    p: &[__S],
    dydt: &mut [__S],
) {
    use ::autodiff::__private::Float as _;
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __rhs_generic {}
impl ::autodiff::__private::GenericCopy for __rhs_generic {
    type Copy = __rhs_generic;
    #[inline(always)]
    fn copy() -> __rhs_generic {
        __rhs_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __rhs_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __rhs_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        d_ret: (),
        d_dydt: ::core::option::Option<&[__S]>,
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        use ::autodiff::__private::Float as _;
        let _ = d_ret;
        let mut __d_y = ::autodiff::__private::zeros_like(&y);
        let mut __d_p = ::autodiff::__private::zeros_like(&p);
        let mut __d_dydt = ::autodiff::__private::output_cotangent(
            "dydt",
            d_dydt,
            &dydt[..],
        );
        let __v0 = p[0];
        let __v1 = y[0];
        let __v2 = __v0 * __v1;
        let __v3 = y[1];
        let __v4 = __v1 * __v3;
        let __v5 = __v2 - __v4;
        dydt[0] = __v5;
        let __v6 = p[1];
        let __v7 = __v6 * __v3;
        let __v8 = __v4 - __v7;
        dydt[1] = __v8;
        let __d_v8 = __d_dydt[1];
        __d_dydt[1] = ::autodiff::__private::Zero::zero();
        let __d_v7 = -__d_v8;
        let __d_v6 = __d_v7 * __v3;
        let __d_v3 = __d_v7 * __v6;
        ::autodiff::__private::add_to(&mut __d_p[1], __d_v6);
        let __d_v5 = __d_dydt[0];
        __d_dydt[0] = ::autodiff::__private::Zero::zero();
        let __d_v4 = __d_v8 - __d_v5;
        let __d_v1 = __d_v4 * __v3;
        let __d_v3_1 = __d_v3 + __d_v4 * __v1;
        ::autodiff::__private::add_to(&mut __d_y[1], __d_v3_1);
        let __d_v0 = __d_v5 * __v1;
        let __d_v1_1 = __d_v1 + __d_v5 * __v0;
        ::autodiff::__private::add_to(&mut __d_y[0], __d_v1_1);
        ::autodiff::__private::add_to(&mut __d_p[0], __d_v0);
        ((), (__d_y, __d_p, __d_dydt))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_dydt: &mut [__S],
    ) -> () {
        use ::autodiff::__private::Float as _;
        let (__dot_y, __dot_p, __dot_dydt) = tangent;
        let mut __dot_y = ::autodiff::__private::tangent("y", __dot_y, &y);
        let mut __dot_p = ::autodiff::__private::tangent("p", __dot_p, &p);
        let mut __dot_dydt = ::autodiff::__private::tangent("dydt", __dot_dydt, &dydt);
        let mut __dot_dydt_1 = ::autodiff::__private::output_tangent(
            "dydt",
            d_dydt,
            &dydt,
        );
        ::autodiff::__private::copy_into("dydt", &mut __dot_dydt_1[..], &__dot_dydt[..]);
        let __v0 = p[0];
        let __dot_v0 = __dot_p[0];
        let __v1 = y[0];
        let __dot_v1 = __dot_y[0];
        let __v2 = __v0 * __v1;
        let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
        let __v3 = y[1];
        let __dot_v3 = __dot_y[1];
        let __v4 = __v1 * __v3;
        let __dot_v4 = __dot_v1 * __v3 + __dot_v3 * __v1;
        let __v5 = __v2 - __v4;
        let __dot_v5 = __dot_v2 - __dot_v4;
        dydt[0] = __v5;
        __dot_dydt_1[0] = __dot_v5;
        let __v6 = p[1];
        let __dot_v6 = __dot_p[1];
        let __v7 = __v6 * __v3;
        let __dot_v7 = __dot_v6 * __v3 + __dot_v3 * __v6;
        let __v8 = __v4 - __v7;
        let __dot_v8 = __dot_v4 - __dot_v7;
        dydt[1] = __v8;
        __dot_dydt_1[1] = __dot_v8;
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
    ) -> () {
        __rhs_generic(y, p, dydt)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
    ) -> () {
        __rhs_generic(y, p, dydt)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        d_ret: ::core::option::Option<()>,
        d_dydt: &[__S],
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            y,
            p,
            dydt,
            d_ret,
            ::core::option::Option::Some(&d_dydt[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_dydt: &mut [__S],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            Self::__jvp_all(y, p, dydt, (__tangent_0, __tangent_1, __tangent_2), d_dydt);
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            ::autodiff::__private::Passed<&[__S]>,
        ),
    ) -> ((), (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_dydt = __after_2.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            y,
            p,
            dydt,
            d_ret,
            ::core::option::Option::Some(&d_dydt[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                __gradient_2,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        y: &[__S],
        p: &[__S],
        dydt: &mut [__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            ::autodiff::__private::Passed<&mut [__S]>,
        ),
    ) -> ((), ()) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_dydt: &mut [__S] = ::core::convert::TryInto::try_into(__after_2.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            Self::__jvp_all(y, p, dydt, (__tangent_0, __tangent_1, __tangent_2), d_dydt);
            ((), ())
        }
    }
}
fn euler(y0: &[f64], p: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = y0.to_vec();
    let mut k = vec![0.0; 2];
    for _ in 0..steps {
        rhs(&y, p, &mut k);
        for i in 0..2 {
            y[i] += h * k[i];
        }
    }
    y[0] + y[1] * y[1]
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn euler_grad(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64)) {
    let mut __grad_y0 = ::autodiff::__private::zeros_like(&y0[..]);
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let mut __grad_h = 0.0;
    let value = __euler_vjp_into(
        y0,
        p,
        h,
        steps,
        1.0,
        (&mut __grad_y0, &mut __grad_p, &mut __grad_h),
    );
    (value, (__grad_y0, __grad_p, __grad_h))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn euler_grad_into(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    grad: (&mut [f64], &mut [f64], &mut f64),
) -> f64 {
    let (__grad_y0, __grad_p, __grad_h) = grad;
    ::autodiff::__private::clear(&mut __grad_y0[..]);
    ::autodiff::__private::clear(&mut __grad_p[..]);
    __euler_vjp_into(y0, p, h, steps, 1.0, (__grad_y0, __grad_p, __grad_h))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __euler_vjp_into(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    d_ret: f64,
    grad: (&mut [f64], &mut [f64], &mut f64),
) -> f64 {
    let (__grad_y0, __grad_p, __grad_h) = grad;
    let mut __tape_v1 = ::autodiff::__private::Tape::new();
    let mut __tape_y_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_k_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __d_y0 = ::autodiff::__private::gradient_buffer("y0", __grad_y0, &y0);
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let mut y = y0.to_vec();
    let mut k = ::std::vec![0.0; 2];
    __tape_v1
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..steps))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..2)).0),
        );
    __tape_y_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, y.len());
    __tape_k_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, k.len());
    for __i in 0..steps {
        __tape_y_at_call.push(&y[..]);
        __tape_k_at_call.push(&k[..]);
        rhs(&y, p, &mut k);
        let __k_view: &[_] = &k[..2];
        for __i_1 in 0..2 {
            let __v1 = __k_view[__i_1];
            __tape_v1.push(__v1);
            let __v2 = h * __v1;
            let __v3 = y[__i_1];
            let __v4 = __v3 + __v2;
            y[__i_1] = __v4;
        }
    }
    let __v5 = y[0];
    let __v6 = y[1];
    let __v7 = __v6 * __v6;
    let __v8 = __v5 + __v7;
    let mut __d_y = ::autodiff::__private::zeros_like(&y);
    let mut __d_k = ::autodiff::__private::zeros_like(&k);
    let mut __tape_v1 = __tape_v1.reader();
    let __d_v6 = d_ret * (__v6 + __v6);
    ::autodiff::__private::add_to(&mut __d_y[1], __d_v6);
    ::autodiff::__private::add_to(&mut __d_y[0], d_ret);
    let mut __d_h = 0.0;
    for __i in (0..steps).rev() {
        let mut __d_h_1 = __d_h;
        let __d_k_view: &mut [_] = &mut __d_k[..2];
        for __i_1 in (0..2).rev() {
            let __v1 = __tape_v1.pop();
            let __d_increment = __d_y[__i_1];
            let __d_h_2 = __d_h_1 + __d_increment * __v1;
            let __d_v1 = __d_increment * h;
            ::autodiff::__private::add_to(&mut __d_k_view[__i_1], __d_v1);
            __d_h_1 = __d_h_2;
        }
        let __y_at_call = __tape_y_at_call.pop().to_owned();
        let mut __k_at_call = __tape_k_at_call.pop().to_owned();
        let (_, (__d_argument, __d_argument_1, __d_argument_2)) = ::autodiff::__private::derivative_of!(
            rhs, vjp(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp(
                &__y_at_call,
                p,
                &mut __k_at_call,
                ::core::option::Option::None,
                &__d_k,
            );
        ::autodiff::__private::accumulate(&mut __d_y[..], &__d_argument);
        ::autodiff::__private::accumulate(&mut __d_p[..], &__d_argument_1);
        ::autodiff::__private::copy_into("k", &mut __d_k[..], &__d_argument_2[..]);
        __d_h = __d_h_1;
    }
    ::autodiff::__private::accumulate(&mut __d_y0[..], &__d_y);
    *__grad_h = __d_h;
    __v8
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn euler_vjp(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    d_ret: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64)) {
    let mut __grad_y0 = ::autodiff::__private::zeros_like(&y0[..]);
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let mut __grad_h = 0.0;
    let value = __euler_vjp_into(
        y0,
        p,
        h,
        steps,
        d_ret,
        (&mut __grad_y0, &mut __grad_p, &mut __grad_h),
    );
    (value, (__grad_y0, __grad_p, __grad_h))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn euler_jvp(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64),
) -> (f64, f64) {
    let (__dot_y0, __dot_p, __dot_h) = tangent;
    let mut __dot_y0 = ::autodiff::__private::tangent("y0", __dot_y0, &y0);
    let mut __dot_p = ::autodiff::__private::tangent("p", __dot_p, &p);
    let mut y = y0.to_vec();
    let mut __dot_y = __dot_y0.to_vec();
    let mut k = ::std::vec![0.0; 2];
    let mut __dot_k = ::autodiff::__private::zeros_like(&k);
    for __i in 0..steps {
        let (__v0, __dot_v0) = ::autodiff::__private::derivative_of!(
            rhs, jvp(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .jvp(
                &y,
                p,
                &mut k,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_y)),
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    ::autodiff::__private::snapshot(&__dot_k[..]),
                ),
                &mut __dot_k,
            );
        let __k_view: &[_] = &k[..2];
        let __dot_k_view: &[_] = &__dot_k[..2];
        for __i_1 in 0..2 {
            let __v1 = __k_view[__i_1];
            let __dot_v1 = __dot_k_view[__i_1];
            let __v2 = h * __v1;
            let __dot_v2 = __dot_h * __v1 + __dot_v1 * h;
            let __v3 = y[__i_1];
            let __dot_v3 = __dot_y[__i_1];
            let __v4 = __v3 + __v2;
            let __dot_v4 = __dot_v3 + __dot_v2;
            y[__i_1] = __v4;
            __dot_y[__i_1] = __dot_v4;
        }
    }
    let __v5 = y[0];
    let __dot_v5 = __dot_y[0];
    let __v6 = y[1];
    let __dot_v6 = __dot_y[1];
    let __v7 = __v6 * __v6;
    let __dot_v7 = __dot_v6 * (__v6 + __v6);
    let __v8 = __v5 + __v7;
    let __dot_v8 = __dot_v5 + __dot_v7;
    (__v8, __dot_v8)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct euler {}
impl ::autodiff::__private::GenericCopy for euler {
    type Copy = __euler_generic;
    #[inline(always)]
    fn copy() -> __euler_generic {
        __euler_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for euler {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl euler {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        y0: &[f64],
        p: &[f64],
        h: f64,
        steps: usize,
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64, ())) {
        let (value, gradient) = euler_vjp(y0, p, h, steps, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2, ()))
    }
    #[inline]
    fn jvp(
        self,
        y0: &[f64],
        p: &[f64],
        h: f64,
        steps: usize,
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64, ()),
    ) -> (f64, f64) {
        let (__tangent_0, __tangent_1, __tangent_2, _) = tangents;
        euler_jvp(y0, p, h, steps, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        y0: &[f64],
        p: &[f64],
        h: f64,
        steps: usize,
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<f64>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64, ())) {
        let (__after_0, __after_1, __after_2, __after_3) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = euler_vjp(y0, p, h, steps, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
                ::autodiff::__private::PassOn::pass_on(__after_3, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        y0: &[f64],
        p: &[f64],
        h: f64,
        steps: usize,
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, f64, ()),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (f64, f64) {
        let (__after_0, __after_1, __after_2, __after_3) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2, _) = tangents;
        euler_jvp(y0, p, h, steps, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        y0: &[f64],
        p: &[f64],
        h: f64,
        steps: usize,
        d_ret: f64,
        grads: (
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut f64>,
            (),
        ),
    ) -> f64 {
        let (__slot_0, __slot_1, __slot_2, __slot_3) = grads;
        let value = if __slot_0.is_none() {
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                p.len(),
            );
            let mut __buffer_2 = 0.0;
            let value = __euler_vjp_into_without_y0(
                y0,
                p,
                h,
                steps,
                d_ret,
                (__buffer_1, &mut __buffer_2),
            );
            ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
            value
        } else if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                y0.len(),
            );
            let mut __buffer_2 = 0.0;
            let value = __euler_vjp_into_without_p(
                y0,
                p,
                h,
                steps,
                d_ret,
                (__buffer_0, &mut __buffer_2),
            );
            ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
            value
        } else {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                y0.len(),
            );
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                p.len(),
            );
            let mut __buffer_2 = 0.0;
            let value = __euler_vjp_into(
                y0,
                p,
                h,
                steps,
                d_ret,
                (__buffer_0, __buffer_1, &mut __buffer_2),
            );
            ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
            value
        };
        value
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __euler_vjp_into_without_y0(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    d_ret: f64,
    grad: (&mut [f64], &mut f64),
) -> f64 {
    let (__grad_p, __grad_h) = grad;
    let mut __tape_v1 = ::autodiff::__private::Tape::new();
    let mut __tape_y_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_k_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let mut y = y0.to_vec();
    let mut k = ::std::vec![0.0; 2];
    __tape_v1
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..steps))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..2)).0),
        );
    __tape_y_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, y.len());
    __tape_k_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, k.len());
    for __i in 0..steps {
        __tape_y_at_call.push(&y[..]);
        __tape_k_at_call.push(&k[..]);
        rhs(&y, p, &mut k);
        let __k_view: &[_] = &k[..2];
        for __i_1 in 0..2 {
            let __v1 = __k_view[__i_1];
            __tape_v1.push(__v1);
            let __v2 = h * __v1;
            let __v3 = y[__i_1];
            let __v4 = __v3 + __v2;
            y[__i_1] = __v4;
        }
    }
    let __v5 = y[0];
    let __v6 = y[1];
    let __v7 = __v6 * __v6;
    let __v8 = __v5 + __v7;
    let mut __d_y = ::autodiff::__private::zeros_like(&y);
    let mut __d_k = ::autodiff::__private::zeros_like(&k);
    let mut __tape_v1 = __tape_v1.reader();
    let __d_v6 = d_ret * (__v6 + __v6);
    ::autodiff::__private::add_to(&mut __d_y[1], __d_v6);
    ::autodiff::__private::add_to(&mut __d_y[0], d_ret);
    let mut __d_h = 0.0;
    for __i in (0..steps).rev() {
        let mut __d_h_1 = __d_h;
        let __d_k_view: &mut [_] = &mut __d_k[..2];
        for __i_1 in (0..2).rev() {
            let __v1 = __tape_v1.pop();
            let __d_increment = __d_y[__i_1];
            let __d_h_2 = __d_h_1 + __d_increment * __v1;
            let __d_v1 = __d_increment * h;
            ::autodiff::__private::add_to(&mut __d_k_view[__i_1], __d_v1);
            __d_h_1 = __d_h_2;
        }
        let __y_at_call = __tape_y_at_call.pop().to_owned();
        let mut __k_at_call = __tape_k_at_call.pop().to_owned();
        let (_, (__d_argument, __d_argument_1, __d_argument_2)) = ::autodiff::__private::derivative_of!(
            rhs, vjp(_, _, _, _, _); through 0usize, 1usize, 2usize
        )
            .vjp(
                &__y_at_call,
                p,
                &mut __k_at_call,
                ::core::option::Option::None,
                &__d_k,
            );
        ::autodiff::__private::accumulate(&mut __d_y[..], &__d_argument);
        ::autodiff::__private::accumulate(&mut __d_p[..], &__d_argument_1);
        ::autodiff::__private::copy_into("k", &mut __d_k[..], &__d_argument_2[..]);
        __d_h = __d_h_1;
    }
    *__grad_h = __d_h;
    __v8
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __euler_vjp_into_without_p(
    y0: &[f64],
    p: &[f64],
    h: f64,
    steps: usize,
    d_ret: f64,
    grad: (&mut [f64], &mut f64),
) -> f64 {
    let (__grad_y0, __grad_h) = grad;
    let mut __tape_v1 = ::autodiff::__private::Tape::new();
    let mut __tape_y_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_k_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __d_y0 = ::autodiff::__private::gradient_buffer("y0", __grad_y0, &y0);
    let mut y = y0.to_vec();
    let mut k = ::std::vec![0.0; 2];
    __tape_v1
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..steps))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..2)).0),
        );
    __tape_y_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, y.len());
    __tape_k_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, k.len());
    for __i in 0..steps {
        __tape_y_at_call.push(&y[..]);
        __tape_k_at_call.push(&k[..]);
        rhs(&y, p, &mut k);
        let __k_view: &[_] = &k[..2];
        for __i_1 in 0..2 {
            let __v1 = __k_view[__i_1];
            __tape_v1.push(__v1);
            let __v2 = h * __v1;
            let __v3 = y[__i_1];
            let __v4 = __v3 + __v2;
            y[__i_1] = __v4;
        }
    }
    let __v5 = y[0];
    let __v6 = y[1];
    let __v7 = __v6 * __v6;
    let __v8 = __v5 + __v7;
    let mut __d_y = ::autodiff::__private::zeros_like(&y);
    let mut __d_k = ::autodiff::__private::zeros_like(&k);
    let mut __tape_v1 = __tape_v1.reader();
    let __d_v6 = d_ret * (__v6 + __v6);
    ::autodiff::__private::add_to(&mut __d_y[1], __d_v6);
    ::autodiff::__private::add_to(&mut __d_y[0], d_ret);
    let mut __d_h = 0.0;
    for __i in (0..steps).rev() {
        let mut __d_h_1 = __d_h;
        let __d_k_view: &mut [_] = &mut __d_k[..2];
        for __i_1 in (0..2).rev() {
            let __v1 = __tape_v1.pop();
            let __d_increment = __d_y[__i_1];
            let __d_h_2 = __d_h_1 + __d_increment * __v1;
            let __d_v1 = __d_increment * h;
            ::autodiff::__private::add_to(&mut __d_k_view[__i_1], __d_v1);
            __d_h_1 = __d_h_2;
        }
        let __y_at_call = __tape_y_at_call.pop().to_owned();
        let mut __k_at_call = __tape_k_at_call.pop().to_owned();
        let (_, (__d_argument, _, __d_argument_1)) = ::autodiff::__private::derivative_of!(
            rhs, vjp(_, _, _, _, _); through 0usize, 2usize
        )
            .vjp(
                &__y_at_call,
                p,
                &mut __k_at_call,
                ::core::option::Option::None,
                &__d_k,
            );
        ::autodiff::__private::accumulate(&mut __d_y[..], &__d_argument);
        ::autodiff::__private::copy_into("k", &mut __d_k[..], &__d_argument_1[..]);
        __d_h = __d_h_1;
    }
    ::autodiff::__private::accumulate(&mut __d_y0[..], &__d_y);
    *__grad_h = __d_h;
    __v8
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct euler_grad {}
impl ::autodiff::__private::GenericCopy for euler_grad {
    type Copy = euler_grad;
    #[inline(always)]
    fn copy() -> euler_grad {
        euler_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl euler_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S)) {
        let (__value, (__slot_0, __slot_1, __slot_2, _)) = <euler as ::autodiff::__private::GenericCopy>::copy()
            .vjp(y0, p, h, steps, <__S as ::autodiff::__private::One>::one());
        (__value, (__slot_0, __slot_1, __slot_2))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S)) {
        Self::call(y0, p, h, steps)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct euler_vjp {}
impl ::autodiff::__private::GenericCopy for euler_vjp {
    type Copy = euler_vjp;
    #[inline(always)]
    fn copy() -> euler_vjp {
        euler_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl euler_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S)) {
        let (__value, (__slot_0, __slot_1, __slot_2, _)) = <euler as ::autodiff::__private::GenericCopy>::copy()
            .vjp(y0, p, h, steps, d_ret);
        (__value, (__slot_0, __slot_1, __slot_2))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S)) {
        Self::call(y0, p, h, steps, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct euler_jvp {}
impl ::autodiff::__private::GenericCopy for euler_jvp {
    type Copy = euler_jvp;
    #[inline(always)]
    fn copy() -> euler_jvp {
        euler_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl euler_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S),
    ) -> (__S, __S) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangent;
        <euler as ::autodiff::__private::GenericCopy>::copy()
            .jvp(y0, p, h, steps, (__tangent_0, __tangent_1, __tangent_2, ()))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S),
    ) -> (__S, __S) {
        Self::call(y0, p, h, steps, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __euler_generic<__S: ::autodiff::__private::Float>(
    y0: &[__S],
    p: &[__S],
    h: __S,
    steps: usize,
) -> __S {
    use ::autodiff::__private::Float as _;
    let mut y = y0.to_vec();
    let mut k = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); 2];
    for _ in 0..steps {
        <rhs as ::autodiff::__private::GenericCopy>::Copy::call(&y, p, &mut k);
        for i in 0..2 {
            y[i] = y[i] + (h * k[i]);
        }
    }
    y[0] + y[1] * y[1]
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____euler_generic_vjp_into<__S: ::autodiff::__private::Float>(
    y0: &[__S],
    p: &[__S],
    h: __S,
    steps: usize,
    d_ret: __S,
    grad: (&mut [__S], &mut [__S], &mut __S),
) -> __S {
    let (__grad_y0, __grad_p, __grad_h) = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_v4 = ::autodiff::__private::Tape::new();
    let mut __tape_y_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_k_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __d_y0 = ::autodiff::__private::gradient_buffer("y0", __grad_y0, &y0);
    let mut __d_p = ::autodiff::__private::gradient_buffer("p", __grad_p, &p);
    let mut y = y0.to_vec();
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let mut k = ::std::vec![__v1; 2];
    __tape_v4
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..steps))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..2)).0),
        );
    __tape_y_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, y.len());
    __tape_k_at_call.reserve(::core::iter::Iterator::size_hint(&(0..steps)).0, k.len());
    for __i in 0..steps {
        __tape_y_at_call.push(&y[..]);
        __tape_k_at_call.push(&k[..]);
        <rhs as ::autodiff::__private::GenericCopy>::Copy::call(&y, p, &mut k);
        let __k_view: &[_] = &k[..2];
        for __i_1 in 0..2 {
            let __v3 = y[__i_1];
            let __v4 = __k_view[__i_1];
            __tape_v4.push(__v4);
            let __v5 = h * __v4;
            let __v6 = __v3 + __v5;
            y[__i_1] = __v6;
        }
    }
    let __v7 = y[0];
    let __v8 = y[1];
    let __v9 = __v8 * __v8;
    let __v10 = __v7 + __v9;
    let mut __d_y = ::autodiff::__private::zeros_like(&y);
    let mut __d_k = ::autodiff::__private::zeros_like(&k);
    let mut __tape_v4 = __tape_v4.reader();
    let __d_v8 = d_ret * (__v8 + __v8);
    ::autodiff::__private::add_to(&mut __d_y[1], __d_v8);
    ::autodiff::__private::add_to(&mut __d_y[0], d_ret);
    let mut __d_h = <__S as ::autodiff::__private::Zero>::zero();
    for __i in (0..steps).rev() {
        let mut __d_h_1 = __d_h;
        let __d_k_view: &mut [_] = &mut __d_k[..2];
        for __i_1 in (0..2).rev() {
            let __v4 = __tape_v4.pop();
            let __d_increment = __d_y[__i_1];
            let __d_h_2 = __d_h_1 + __d_increment * __v4;
            let __d_v4 = __d_increment * h;
            ::autodiff::__private::add_to(&mut __d_k_view[__i_1], __d_v4);
            __d_h_1 = __d_h_2;
        }
        let __y_at_call = __tape_y_at_call.pop().to_owned();
        let mut __k_at_call = __tape_k_at_call.pop().to_owned();
        let (_, (__d_argument, __d_argument_1, __d_argument_2)) = <rhs as ::autodiff::__private::GenericCopy>::copy()
            .vjp(
                &__y_at_call,
                p,
                &mut __k_at_call,
                ::core::option::Option::None,
                &__d_k,
            );
        ::autodiff::__private::accumulate(&mut __d_y[..], &__d_argument);
        ::autodiff::__private::accumulate(&mut __d_p[..], &__d_argument_1);
        ::autodiff::__private::copy_into("k", &mut __d_k[..], &__d_argument_2[..]);
        __d_h = __d_h_1;
    }
    ::autodiff::__private::accumulate(&mut __d_y0[..], &__d_y);
    *__grad_h = __d_h;
    __v10
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __euler_generic_vjp<__S: ::autodiff::__private::Float>(
    y0: &[__S],
    p: &[__S],
    h: __S,
    steps: usize,
    d_ret: __S,
) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S)) {
    let mut __grad_y0 = ::autodiff::__private::zeros_like(&y0[..]);
    let mut __grad_p = ::autodiff::__private::zeros_like(&p[..]);
    let mut __grad_h = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____euler_generic_vjp_into(
        y0,
        p,
        h,
        steps,
        d_ret,
        (&mut __grad_y0, &mut __grad_p, &mut __grad_h),
    );
    (value, (__grad_y0, __grad_p, __grad_h))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __euler_generic_jvp<__S: ::autodiff::__private::Float>(
    y0: &[__S],
    p: &[__S],
    h: __S,
    steps: usize,
    tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let (__dot_y0, __dot_p, __dot_h) = tangent;
    let mut __dot_y0 = ::autodiff::__private::tangent("y0", __dot_y0, &y0);
    let mut __dot_p = ::autodiff::__private::tangent("p", __dot_p, &p);
    let mut y = y0.to_vec();
    let mut __dot_y = __dot_y0.to_vec();
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let mut k = ::std::vec![__v1; 2];
    let mut __dot_k = ::autodiff::__private::zeros_like(&k);
    for __i in 0..steps {
        let (__v2, __dot_v2) = <rhs as ::autodiff::__private::GenericCopy>::copy()
            .jvp(
                &y,
                p,
                &mut k,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_y)),
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_p)),
                    ::autodiff::__private::snapshot(&__dot_k[..]),
                ),
                &mut __dot_k,
            );
        let __k_view: &[_] = &k[..2];
        let __dot_k_view: &[_] = &__dot_k[..2];
        for __i_1 in 0..2 {
            let __v3 = y[__i_1];
            let __dot_v3 = __dot_y[__i_1];
            let __v4 = __k_view[__i_1];
            let __dot_v4 = __dot_k_view[__i_1];
            let __v5 = h * __v4;
            let __dot_v5 = __dot_h * __v4 + __dot_v4 * h;
            let __v6 = __v3 + __v5;
            let __dot_v6 = __dot_v3 + __dot_v5;
            y[__i_1] = __v6;
            __dot_y[__i_1] = __dot_v6;
        }
    }
    let __v7 = y[0];
    let __dot_v7 = __dot_y[0];
    let __v8 = y[1];
    let __dot_v8 = __dot_y[1];
    let __v9 = __v8 * __v8;
    let __dot_v9 = __dot_v8 * (__v8 + __v8);
    let __v10 = __v7 + __v9;
    let __dot_v10 = __dot_v7 + __dot_v9;
    (__v10, __dot_v10)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __euler_generic {}
impl ::autodiff::__private::GenericCopy for __euler_generic {
    type Copy = __euler_generic;
    #[inline(always)]
    fn copy() -> __euler_generic {
        __euler_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __euler_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __euler_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
    ) -> __S {
        __euler_generic(y0, p, h, steps)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
    ) -> __S {
        __euler_generic(y0, p, h, steps)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S, ())) {
        let (value, gradient) = __euler_generic_vjp(y0, p, h, steps, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2, ()))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S, ()),
    ) -> (__S, __S) {
        let (__tangent_0, __tangent_1, __tangent_2, _) = tangents;
        __euler_generic_jvp(y0, p, h, steps, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<__S>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S, ())) {
        let (__after_0, __after_1, __after_2, __after_3) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __euler_generic_vjp(y0, p, h, steps, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
                ::autodiff::__private::PassOn::pass_on(__after_3, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, __S, ()),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (__S, __S) {
        let (__after_0, __after_1, __after_2, __after_3) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2, _) = tangents;
        __euler_generic_jvp(y0, p, h, steps, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        y0: &[__S],
        p: &[__S],
        h: __S,
        steps: usize,
        d_ret: __S,
        grads: (
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut __S>,
            (),
        ),
    ) -> __S {
        let (__slot_0, __slot_1, __slot_2, __slot_3) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            y0.len(),
        );
        let mut __scratch_1 = ::autodiff::__private::Scratch::new();
        let __buffer_1 = ::autodiff::__private::slot_or_scratch(
            __slot_1,
            &mut __scratch_1,
            p.len(),
        );
        let mut __buffer_2 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____euler_generic_vjp_into(
            y0,
            p,
            h,
            steps,
            d_ret,
            (__buffer_0, __buffer_1, &mut __buffer_2),
        );
        ::autodiff::__private::add_into_slot(__slot_2, __buffer_2);
        value
    }
}
fn rotate(t: f64, v: &[f64; 2], out: &mut [f64; 2]) {
    out[0] = t.cos() * v[0] - t.sin() * v[1];
    out[1] = t.sin() * v[0] + t.cos() * v[1];
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __rotate_vjp_into(
    t: f64,
    v: &[f64; 2],
    out: &mut [f64; 2],
    d_ret: (),
    d_out: ::core::option::Option<&[f64]>,
    grad: (&mut f64, &mut [f64; 2]),
) -> () {
    let (__grad_t, __grad_v) = grad;
    let _ = d_ret;
    let mut __d_v = ::autodiff::__private::gradient_buffer("v", __grad_v, &v);
    let mut __d_out = ::autodiff::__private::output_cotangent("out", d_out, &out[..]);
    let __v0 = t.cos();
    let __v1 = v[0];
    let __v2 = __v0 * __v1;
    let __v3 = t.sin();
    let __v4 = v[1];
    let __v5 = __v3 * __v4;
    let __v6 = __v2 - __v5;
    out[0] = __v6;
    let __v7 = __v3 * __v1;
    let __v8 = __v0 * __v4;
    let __v9 = __v7 + __v8;
    out[1] = __v9;
    let __d_v9 = __d_out[1];
    __d_out[1] = ::autodiff::__private::Zero::zero();
    let __d_v0 = __d_v9 * __v4;
    let __d_v4 = __d_v9 * __v0;
    let __d_v3 = __d_v9 * __v1;
    let __d_v1 = __d_v9 * __v3;
    let __d_v6 = __d_out[0];
    __d_out[0] = ::autodiff::__private::Zero::zero();
    let __d_v5 = -__d_v6;
    let __d_v3_1 = __d_v3 + __d_v5 * __v4;
    let __d_v4_1 = __d_v4 + __d_v5 * __v3;
    ::autodiff::__private::add_to(&mut __d_v[1], __d_v4_1);
    let __d_t = __d_v3_1 * ::autodiff::__private::Float::cos(t);
    let __d_v0_1 = __d_v0 + __d_v6 * __v1;
    let __d_v1_1 = __d_v1 + __d_v6 * __v0;
    ::autodiff::__private::add_to(&mut __d_v[0], __d_v1_1);
    let __d_t_1 = __d_t + __d_v0_1 * -::autodiff::__private::Float::sin(t);
    *__grad_t = __d_t_1;
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rotate_vjp(
    t: f64,
    v: &[f64; 2],
    out: &mut [f64; 2],
    d_out: &[f64; 2],
) -> (f64, [f64; 2]) {
    let mut __grad_t = 0.0;
    let mut __grad_v = ::autodiff::__private::zeros_like(&v);
    __rotate_vjp_into(
        t,
        v,
        out,
        (),
        ::core::option::Option::Some(&d_out[..]),
        (&mut __grad_t, &mut __grad_v),
    );
    (__grad_t, __grad_v)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rotate_jvp(
    t: f64,
    v: &[f64; 2],
    out: &mut [f64; 2],
    tangent: (f64, [f64; 2]),
    d_out: &mut [f64; 2],
) -> () {
    let (__dot_t, __dot_v) = tangent;
    let mut __dot_v = ::autodiff::__private::tangent("v", __dot_v, &v);
    let mut __dot_out = ::autodiff::__private::output_tangent("out", d_out, &out);
    ::autodiff::__private::clear(&mut __dot_out[..]);
    let __v0 = t.cos();
    let __dot_v0 = __dot_t * -::autodiff::__private::Float::sin(t);
    let __v1 = v[0];
    let __dot_v1 = __dot_v[0];
    let __v2 = __v0 * __v1;
    let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
    let __v3 = t.sin();
    let __dot_v3 = __dot_t * ::autodiff::__private::Float::cos(t);
    let __v4 = v[1];
    let __dot_v4 = __dot_v[1];
    let __v5 = __v3 * __v4;
    let __dot_v5 = __dot_v3 * __v4 + __dot_v4 * __v3;
    let __v6 = __v2 - __v5;
    let __dot_v6 = __dot_v2 - __dot_v5;
    out[0] = __v6;
    __dot_out[0] = __dot_v6;
    let __v7 = __v3 * __v1;
    let __dot_v7 = __dot_v3 * __v1 + __dot_v1 * __v3;
    let __v8 = __v0 * __v4;
    let __dot_v8 = __dot_v0 * __v4 + __dot_v4 * __v0;
    let __v9 = __v7 + __v8;
    let __dot_v9 = __dot_v7 + __dot_v8;
    out[1] = __v9;
    __dot_out[1] = __dot_v9;
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn rotate_jacobian(
    t: f64,
    v: &[f64; 2],
    out: &mut [f64; 2],
) -> ::std::vec::Vec<::std::vec::Vec<f64>> {
    let __incoming = ::autodiff::__private::snapshot(&*out);
    let __value = ::autodiff::__private::snapshot(&*out);
    let __rows = __value.len();
    let __columns = 0usize + 1usize + v.len();
    let mut __jacobian = ::std::vec::Vec::with_capacity(__rows);
    if __rows <= __columns {
        for __i in 0..__rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&__value);
            __d_ret[__i] = <f64 as ::autodiff::__private::One>::one();
            ::autodiff::__private::copy_into("out", &mut out[..], &__incoming[..]);
            let (__part_0, __part_1) = rotate_vjp(
                ::autodiff::__private::Reusable::again(&t),
                v,
                &mut *out,
                &__d_ret,
            );
            let mut __row = ::std::vec::Vec::with_capacity(__columns);
            __row.push(__part_0);
            __row.extend_from_slice(&__part_1[..]);
            __jacobian.push(__row);
        }
    } else {
        __jacobian = ::std::vec![
            ::std::vec![< f64 as ::autodiff::__private::Zero > ::zero(); __columns];
            __rows
        ];
        for __j in 0..__columns {
            ::autodiff::__private::copy_into("out", &mut out[..], &__incoming[..]);
            let __tangent = (
                if __j == 0usize {
                    <f64 as ::autodiff::__private::One>::one()
                } else {
                    <f64 as ::autodiff::__private::Zero>::zero()
                },
                {
                    let mut __t = ::autodiff::__private::zeros_like(&v);
                    if __j >= (0usize + 1usize) && __j < (0usize + 1usize) + v.len() {
                        __t[__j - (0usize + 1usize)] = <f64 as ::autodiff::__private::One>::one();
                    }
                    __t
                },
            );
            let mut __column = ::autodiff::__private::zeros_like(&__value);
            rotate_jvp(
                ::autodiff::__private::Reusable::again(&t),
                v,
                &mut *out,
                __tangent,
                &mut __column,
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
struct rotate {}
impl ::autodiff::__private::GenericCopy for rotate {
    type Copy = __rotate_generic;
    #[inline(always)]
    fn copy() -> __rotate_generic {
        __rotate_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rotate {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rotate {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        t: f64,
        v: &[f64; 2],
        out: &mut [f64; 2],
        d_ret: ::core::option::Option<()>,
        d_out: &[f64; 2],
    ) -> ((), (f64, [f64; 2], ::std::vec::Vec<f64>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __rotate_generic::__vjp_all(
            t,
            v,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2))
    }
    #[inline]
    fn jvp(
        self,
        t: f64,
        v: &[f64; 2],
        out: &mut [f64; 2],
        tangents: (f64, [f64; 2], ::std::vec::Vec<f64>),
        d_out: &mut [f64; 2],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            __rotate_generic::__jvp_all(
                t,
                v,
                out,
                (__tangent_0, __tangent_1, __tangent_2),
                d_out,
            );
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        t: f64,
        v: &[f64; 2],
        out: &mut [f64; 2],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<f64>,
            impl ::autodiff::__private::PassOn<[f64; 2]>,
            ::autodiff::__private::Passed<&[f64]>,
        ),
    ) -> ((), (f64, [f64; 2], ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_out = __after_2.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = __rotate_generic::__vjp_all(
            t,
            v,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                __gradient_2,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        t: f64,
        v: &[f64; 2],
        out: &mut [f64; 2],
        tangents: (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            ::autodiff::__private::Passed<&mut [f64]>,
        ),
    ) -> ((), ()) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_out: &mut [f64; 2] = ::core::convert::TryInto::try_into(__after_2.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        let __tangent_1: [f64; 2] = ::autodiff::__private::call_cotangent(
            ::core::convert::AsRef::as_ref(&__tangent_1),
        );
        {
            __rotate_generic::__jvp_all(
                t,
                v,
                out,
                (__tangent_0, __tangent_1, __tangent_2),
                d_out,
            );
            ((), ())
        }
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __rotate_generic<__S: ::autodiff::__private::Float>(
    t: __S,
    v: &[__S; 2],
    out: &mut [__S; 2],
) {
    use ::autodiff::__private::Float as _;
    out[0] = t.cos() * v[0] - t.sin() * v[1];
    out[1] = t.sin() * v[0] + t.cos() * v[1];
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __rotate_generic {}
impl ::autodiff::__private::GenericCopy for __rotate_generic {
    type Copy = __rotate_generic;
    #[inline(always)]
    fn copy() -> __rotate_generic {
        __rotate_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __rotate_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __rotate_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        d_ret: (),
        d_out: ::core::option::Option<&[__S]>,
    ) -> ((), (__S, [__S; 2], ::std::vec::Vec<__S>)) {
        use ::autodiff::__private::Float as _;
        let _ = d_ret;
        let mut __d_v = ::autodiff::__private::zeros_like(&v);
        let mut __d_out = ::autodiff::__private::output_cotangent(
            "out",
            d_out,
            &out[..],
        );
        let __v0 = t.cos();
        let __v1 = v[0];
        let __v2 = __v0 * __v1;
        let __v3 = t.sin();
        let __v4 = v[1];
        let __v5 = __v3 * __v4;
        let __v6 = __v2 - __v5;
        out[0] = __v6;
        let __v7 = __v3 * __v1;
        let __v8 = __v0 * __v4;
        let __v9 = __v7 + __v8;
        out[1] = __v9;
        let __d_v9 = __d_out[1];
        __d_out[1] = ::autodiff::__private::Zero::zero();
        let __d_v0 = __d_v9 * __v4;
        let __d_v4 = __d_v9 * __v0;
        let __d_v3 = __d_v9 * __v1;
        let __d_v1 = __d_v9 * __v3;
        let __d_v6 = __d_out[0];
        __d_out[0] = ::autodiff::__private::Zero::zero();
        let __d_v5 = -__d_v6;
        let __d_v3_1 = __d_v3 + __d_v5 * __v4;
        let __d_v4_1 = __d_v4 + __d_v5 * __v3;
        ::autodiff::__private::add_to(&mut __d_v[1], __d_v4_1);
        let __d_t = __d_v3_1 * ::autodiff::__private::Float::cos(t);
        let __d_v0_1 = __d_v0 + __d_v6 * __v1;
        let __d_v1_1 = __d_v1 + __d_v6 * __v0;
        ::autodiff::__private::add_to(&mut __d_v[0], __d_v1_1);
        let __d_t_1 = __d_t + __d_v0_1 * -::autodiff::__private::Float::sin(t);
        ((), (__d_t_1, __d_v, __d_out))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        tangent: (__S, [__S; 2], ::std::vec::Vec<__S>),
        d_out: &mut [__S; 2],
    ) -> () {
        use ::autodiff::__private::Float as _;
        let (__dot_t, __dot_v, __dot_out) = tangent;
        let mut __dot_v = ::autodiff::__private::tangent("v", __dot_v, &v);
        let mut __dot_out = ::autodiff::__private::tangent("out", __dot_out, &out);
        let mut __dot_out_1 = ::autodiff::__private::output_tangent("out", d_out, &out);
        ::autodiff::__private::copy_into("out", &mut __dot_out_1[..], &__dot_out[..]);
        let __v0 = t.cos();
        let __dot_v0 = __dot_t * -::autodiff::__private::Float::sin(t);
        let __v1 = v[0];
        let __dot_v1 = __dot_v[0];
        let __v2 = __v0 * __v1;
        let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
        let __v3 = t.sin();
        let __dot_v3 = __dot_t * ::autodiff::__private::Float::cos(t);
        let __v4 = v[1];
        let __dot_v4 = __dot_v[1];
        let __v5 = __v3 * __v4;
        let __dot_v5 = __dot_v3 * __v4 + __dot_v4 * __v3;
        let __v6 = __v2 - __v5;
        let __dot_v6 = __dot_v2 - __dot_v5;
        out[0] = __v6;
        __dot_out_1[0] = __dot_v6;
        let __v7 = __v3 * __v1;
        let __dot_v7 = __dot_v3 * __v1 + __dot_v1 * __v3;
        let __v8 = __v0 * __v4;
        let __dot_v8 = __dot_v0 * __v4 + __dot_v4 * __v0;
        let __v9 = __v7 + __v8;
        let __dot_v9 = __dot_v7 + __dot_v8;
        out[1] = __v9;
        __dot_out_1[1] = __dot_v9;
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
    ) -> () {
        __rotate_generic(t, v, out)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
    ) -> () {
        __rotate_generic(t, v, out)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        d_ret: ::core::option::Option<()>,
        d_out: &[__S; 2],
    ) -> ((), (__S, [__S; 2], ::std::vec::Vec<__S>)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            t,
            v,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        tangents: (__S, [__S; 2], ::std::vec::Vec<__S>),
        d_out: &mut [__S; 2],
    ) -> ((), ()) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        {
            Self::__jvp_all(t, v, out, (__tangent_0, __tangent_1, __tangent_2), d_out);
            ((), ())
        }
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        d_ret: ::core::option::Option<()>,
        d_after: (
            impl ::autodiff::__private::PassOn<__S>,
            impl ::autodiff::__private::PassOn<[__S; 2]>,
            ::autodiff::__private::Passed<&[__S]>,
        ),
    ) -> ((), (__S, [__S; 2], ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_out = __after_2.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {}
        };
        let (value, gradient) = Self::__vjp_all(
            t,
            v,
            out,
            d_ret,
            ::core::option::Option::Some(&d_out[..]),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                __gradient_2,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        t: __S,
        v: &[__S; 2],
        out: &mut [__S; 2],
        tangents: (__S, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            ::autodiff::__private::Passed<&mut [__S]>,
        ),
    ) -> ((), ()) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_out: &mut [__S; 2] = ::core::convert::TryInto::try_into(__after_2.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        let __tangent_1: [__S; 2] = ::autodiff::__private::call_cotangent(
            ::core::convert::AsRef::as_ref(&__tangent_1),
        );
        {
            Self::__jvp_all(t, v, out, (__tangent_0, __tangent_1, __tangent_2), d_out);
            ((), ())
        }
    }
}
