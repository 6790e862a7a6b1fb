use autodiff::{differentiable, Float};
fn residual<T: Float>(x: &[T], r: &mut [T], e: &mut T) -> T {
    r[0] = x[0] * x[1] - *e;
    *e = r[0] * r[0];
    *e + x[0]
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn residual_grad<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
) -> (T, (::std::vec::Vec<T>, T)) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_e = ::autodiff::__private::zero_like(&*e);
    let value = __residual_vjp_into(
        x,
        r,
        e,
        <T as ::autodiff::__private::One>::one(),
        ::core::option::Option::None,
        ::core::option::Option::None,
        (&mut __grad_x, &mut __grad_e),
    );
    (value, (__grad_x, __grad_e))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn residual_grad_into<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
    grad: (&mut [T], &mut T),
) -> T {
    let (__grad_x, __grad_e) = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    *__grad_e = ::autodiff::__private::zero_like(&*__grad_e);
    __residual_vjp_into(
        x,
        r,
        e,
        <T as ::autodiff::__private::One>::one(),
        ::core::option::Option::None,
        ::core::option::Option::None,
        (__grad_x, __grad_e),
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __residual_vjp_into<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
    d_ret: T,
    d_r: ::core::option::Option<&[T]>,
    d_e: ::core::option::Option<&[T]>,
    grad: (&mut [T], &mut T),
) -> T {
    let (__grad_x, __grad_e) = grad;
    let __grad_e = ::core::slice::from_mut(__grad_e);
    let e = ::core::slice::from_mut(e);
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let mut __d_e = ::autodiff::__private::gradient_buffer("e", __grad_e, &e);
    ::autodiff::__private::add_output_cotangent("e", &mut __d_e[..], d_e, &e[..]);
    let mut __d_r = ::autodiff::__private::output_cotangent("r", d_r, &r[..]);
    let __v0 = x[0];
    let __v1 = x[1];
    let __v2 = __v0 * __v1;
    let __v3 = e[0];
    let __v4 = __v2 - __v3;
    r[0] = __v4;
    let __v5 = r[0];
    let __v6 = __v5 * __v5;
    e[0] = __v6;
    let __v7 = e[0];
    let __v8 = __v7 + __v0;
    ::autodiff::__private::add_to(&mut __d_e[0], d_ret);
    let __d_v6 = __d_e[0];
    __d_e[0] = ::autodiff::__private::Zero::zero();
    let __d_v5 = __d_v6 * (__v5 + __v5);
    ::autodiff::__private::add_to(&mut __d_r[0], __d_v5);
    let __d_v4 = __d_r[0];
    __d_r[0] = ::autodiff::__private::Zero::zero();
    let __d_v3 = -__d_v4;
    ::autodiff::__private::add_to(&mut __d_e[0], __d_v3);
    let __d_v0 = d_ret + __d_v4 * __v1;
    let __d_v1 = __d_v4 * __v0;
    ::autodiff::__private::add_to(&mut __d_x[1], __d_v1);
    ::autodiff::__private::add_to(&mut __d_x[0], __d_v0);
    __v8
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn residual_vjp<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
    d_ret: T,
    d_r: &[T],
    d_e: impl ::autodiff::FloatCotangent<T>,
) -> (T, (::std::vec::Vec<T>, T)) {
    let d_e = ::autodiff::FloatCotangent::<T>::float_cotangent(d_e, "e");
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let mut __grad_e = ::autodiff::__private::zero_like(&*e);
    let value = __residual_vjp_into(
        x,
        r,
        e,
        d_ret,
        ::core::option::Option::Some(&d_r[..]),
        ::core::option::Option::Some(::core::slice::from_ref(&d_e)),
        (&mut __grad_x, &mut __grad_e),
    );
    (value, (__grad_x, __grad_e))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn residual_jvp<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
    tangent: (::std::vec::Vec<T>, T),
    d_r: &mut [T],
    d_e: impl ::autodiff::FloatTangentBuffer<T>,
) -> (T, T) {
    let d_e = ::autodiff::FloatTangentBuffer::<T>::float_tangent_buffer(d_e, "e");
    let e = ::core::slice::from_mut(e);
    let (__dot_x, __dot_e) = tangent;
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut __dot_e = ::autodiff::__private::tangent("e", [__dot_e], &e);
    let mut __dot_r = ::autodiff::__private::output_tangent("r", d_r, &r);
    ::autodiff::__private::clear(&mut __dot_r[..]);
    let mut __dot_e_1 = ::autodiff::__private::output_tangent(
        "e",
        ::core::slice::from_mut(d_e),
        &e,
    );
    ::autodiff::__private::copy_into("e", &mut __dot_e_1[..], &__dot_e[..]);
    let __v0 = x[0];
    let __dot_v0 = __dot_x[0];
    let __v1 = x[1];
    let __dot_v1 = __dot_x[1];
    let __v2 = __v0 * __v1;
    let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
    let __v3 = e[0];
    let __dot_v3 = __dot_e_1[0];
    let __v4 = __v2 - __v3;
    let __dot_v4 = __dot_v2 - __dot_v3;
    r[0] = __v4;
    __dot_r[0] = __dot_v4;
    let __v5 = r[0];
    let __dot_v5 = __dot_r[0];
    let __v6 = __v5 * __v5;
    let __dot_v6 = __dot_v5 * (__v5 + __v5);
    e[0] = __v6;
    __dot_e_1[0] = __dot_v6;
    let __v7 = e[0];
    let __dot_v7 = __dot_e_1[0];
    let __v8 = __v7 + __v0;
    let __dot_v8 = __dot_v7 + __dot_v0;
    (__v8, __dot_v8)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct residual {}
impl ::autodiff::__private::GenericCopy for residual {
    type Copy = residual;
    #[inline(always)]
    fn copy() -> residual {
        residual {}
    }
}
impl ::autodiff::__private::HasGenericCopy for residual {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl residual {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<T: Float>(
        x: &[T],
        r: &mut [T],
        e: &mut T,
        d_ret: T,
        d_r: ::core::option::Option<&[T]>,
        d_e: ::core::option::Option<&[T]>,
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>, T)) {
        let e = ::core::slice::from_mut(e);
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let mut __d_r = ::autodiff::__private::output_cotangent("r", d_r, &r[..]);
        let mut __d_e = ::autodiff::__private::output_cotangent("e", d_e, &e[..]);
        let __v0 = x[0];
        let __v1 = x[1];
        let __v2 = __v0 * __v1;
        let __v3 = e[0];
        let __v4 = __v2 - __v3;
        r[0] = __v4;
        let __v5 = r[0];
        let __v6 = __v5 * __v5;
        e[0] = __v6;
        let __v7 = e[0];
        let __v8 = __v7 + __v0;
        ::autodiff::__private::add_to(&mut __d_e[0], d_ret);
        let __d_v6 = __d_e[0];
        __d_e[0] = ::autodiff::__private::Zero::zero();
        let __d_v5 = __d_v6 * (__v5 + __v5);
        ::autodiff::__private::add_to(&mut __d_r[0], __d_v5);
        let __d_v4 = __d_r[0];
        __d_r[0] = ::autodiff::__private::Zero::zero();
        let __d_v3 = -__d_v4;
        ::autodiff::__private::add_to(&mut __d_e[0], __d_v3);
        let __d_v0 = d_ret + __d_v4 * __v1;
        let __d_v1 = __d_v4 * __v0;
        ::autodiff::__private::add_to(&mut __d_x[1], __d_v1);
        ::autodiff::__private::add_to(&mut __d_x[0], __d_v0);
        (__v8, (__d_x, __d_r, __d_e[0]))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<T: Float>(
        x: &[T],
        r: &mut [T],
        e: &mut T,
        tangent: (::std::vec::Vec<T>, ::std::vec::Vec<T>, T),
        d_r: &mut [T],
        d_e: &mut T,
    ) -> (T, T) {
        let e = ::core::slice::from_mut(e);
        let (__dot_x, __dot_r, __dot_e) = tangent;
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let mut __dot_r = ::autodiff::__private::tangent("r", __dot_r, &r);
        let mut __dot_e = ::autodiff::__private::tangent("e", [__dot_e], &e);
        let mut __dot_r_1 = ::autodiff::__private::output_tangent("r", d_r, &r);
        ::autodiff::__private::copy_into("r", &mut __dot_r_1[..], &__dot_r[..]);
        let mut __dot_e_1 = ::autodiff::__private::output_tangent(
            "e",
            ::core::slice::from_mut(d_e),
            &e,
        );
        ::autodiff::__private::copy_into("e", &mut __dot_e_1[..], &__dot_e[..]);
        let __v0 = x[0];
        let __dot_v0 = __dot_x[0];
        let __v1 = x[1];
        let __dot_v1 = __dot_x[1];
        let __v2 = __v0 * __v1;
        let __dot_v2 = __dot_v0 * __v1 + __dot_v1 * __v0;
        let __v3 = e[0];
        let __dot_v3 = __dot_e_1[0];
        let __v4 = __v2 - __v3;
        let __dot_v4 = __dot_v2 - __dot_v3;
        r[0] = __v4;
        __dot_r_1[0] = __dot_v4;
        let __v5 = r[0];
        let __dot_v5 = __dot_r_1[0];
        let __v6 = __v5 * __v5;
        let __dot_v6 = __dot_v5 * (__v5 + __v5);
        e[0] = __v6;
        __dot_e_1[0] = __dot_v6;
        let __v7 = e[0];
        let __dot_v7 = __dot_e_1[0];
        let __v8 = __v7 + __v0;
        let __dot_v8 = __dot_v7 + __dot_v0;
        (__v8, __dot_v8)
    }
    #[inline]
    fn call<T: Float>(x: &[T], r: &mut [T], e: &mut T) -> T {
        residual(x, r, e)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<T: Float>(self, x: &[T], r: &mut [T], e: &mut T) -> T {
        residual(x, r, e)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<T: Float>(
        self,
        x: &[T],
        r: &mut [T],
        e: &mut T,
        d_ret: ::core::option::Option<T>,
        d_r: &[T],
        d_e: T,
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>, T)) {
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <T as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(
            x,
            r,
            e,
            d_ret,
            ::core::option::Option::Some(&d_r[..]),
            ::core::option::Option::Some(::core::slice::from_ref(&d_e)),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (value, (__gradient_0, __gradient_1, __gradient_2))
    }
    #[inline]
    fn jvp<T: Float>(
        self,
        x: &[T],
        r: &mut [T],
        e: &mut T,
        tangents: (::std::vec::Vec<T>, ::std::vec::Vec<T>, T),
        d_r: &mut [T],
        d_e: &mut T,
    ) -> (T, T) {
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        Self::__jvp_all(x, r, e, (__tangent_0, __tangent_1, __tangent_2), d_r, d_e)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<T: Float>(
        self,
        x: &[T],
        r: &mut [T],
        e: &mut T,
        d_ret: ::core::option::Option<T>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<T>>,
            ::autodiff::__private::Passed<&[T]>,
            ::autodiff::__private::Passed<T>,
        ),
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>, T)) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_r = __after_1.0;
        let d_e = __after_2.0;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <T as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(
            x,
            r,
            e,
            d_ret,
            ::core::option::Option::Some(&d_r[..]),
            ::core::option::Option::Some(::core::slice::from_ref(&d_e)),
        );
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                __gradient_1,
                __gradient_2,
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<T: Float>(
        self,
        x: &[T],
        r: &mut [T],
        e: &mut T,
        tangents: (::std::vec::Vec<T>, ::std::vec::Vec<T>, T),
        d_after: (
            impl ::core::marker::Sized,
            ::autodiff::__private::Passed<&mut [T]>,
            ::autodiff::__private::Passed<&mut T>,
        ),
    ) -> (T, T) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_r: &mut [T] = ::core::convert::TryInto::try_into(__after_1.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let d_e: &mut T = ::core::convert::TryInto::try_into(__after_2.0)
            .expect("autodiff: a tangent buffer of the wrong length");
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        Self::__jvp_all(x, r, e, (__tangent_0, __tangent_1, __tangent_2), d_r, d_e)
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn residual_hvp<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
    v: (::std::vec::Vec<T>, T),
) -> (T, (::std::vec::Vec<T>, T), (::std::vec::Vec<T>, T)) {
    let (__direction_0, __direction_1) = v;
    let __lifted_x = ::autodiff::__private::dual_vec("x", &x, &__direction_0);
    let mut __lifted_r = ::autodiff::__private::constant_vec(&(*r));
    let mut __lifted_e = ::autodiff::__private::Dual::new((*e), __direction_1);
    let (value, gradient) = residual_grad(&__lifted_x, &mut __lifted_r, &mut __lifted_e);
    for (__element, __dual) in r.iter_mut().zip(__lifted_r.iter()) {
        *__element = __dual.re;
    }
    *e = __lifted_e.re;
    let (__part_0, __part_1) = gradient;
    (
        value.re,
        (
            ::autodiff::__private::re_parts(&__part_0),
            ::autodiff::__private::re_parts(&__part_1),
        ),
        (
            ::autodiff::__private::eps_parts_into(&__part_0, __direction_0),
            ::autodiff::__private::eps_parts_into(&__part_1, __direction_1),
        ),
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn residual_hessian<T: Float>(
    x: &[T],
    r: &mut [T],
    e: &mut T,
) -> (T, (::std::vec::Vec<T>, T), ::std::vec::Vec<::std::vec::Vec<T>>) {
    let __incoming_r = ::std::borrow::ToOwned::to_owned(&*r);
    let __incoming_e = ::std::borrow::ToOwned::to_owned(&*e);
    let (value, gradient) = residual_grad(x, r, e);
    let __n: usize = 0 + x.len() + 1;
    let mut __hessian = ::std::vec::Vec::with_capacity(__n);
    for __i in 0..__n {
        let mut __offset = 0usize;
        let (_, _, (__hv_0, __hv_1)) = residual_hvp(
            x,
            &mut ::core::clone::Clone::clone(&__incoming_r),
            &mut ::core::clone::Clone::clone(&__incoming_e),
            (
                {
                    let __unit: ::std::vec::Vec<T> = (0..x.len())
                        .map(|__j| {
                            if __i == __offset + __j {
                                <T as ::autodiff::__private::One>::one()
                            } else {
                                <T as ::autodiff::__private::Zero>::zero()
                            }
                        })
                        .collect();
                    __offset += x.len();
                    __unit
                },
                {
                    let __unit = if __i == __offset {
                        <T as ::autodiff::__private::One>::one()
                    } else {
                        <T as ::autodiff::__private::Zero>::zero()
                    };
                    __offset += 1;
                    __unit
                },
            ),
        );
        let mut __row = ::std::vec::Vec::with_capacity(__n);
        __row.extend_from_slice(&__hv_0[..]);
        __row.push(__hv_1);
        __hessian.push(__row);
    }
    (value, gradient, ::autodiff::__private::hessian_from_columns(&__hessian))
}
