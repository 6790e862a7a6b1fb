use autodiff::differentiable;
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for p in 0..k {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __matmul_vjp_into(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<f64>,
    grad: (&mut [f64], &mut [f64]),
) -> Vec<f64> {
    ____matmul_generic_vjp_into(a, b, m, k, n, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn matmul_vjp(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<f64>,
) -> (Vec<f64>, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_a = ::autodiff::__private::zeros_like(&a[..]);
    let mut __grad_b = ::autodiff::__private::zeros_like(&b[..]);
    let value = __matmul_vjp_into(a, b, m, k, n, d_ret, (&mut __grad_a, &mut __grad_b));
    (value, (__grad_a, __grad_b))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn matmul_jvp(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
) -> (Vec<f64>, Vec<f64>) {
    __matmul_generic_jvp(a, b, m, k, n, tangent)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
fn matmul_jacobian(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
) -> ::std::vec::Vec<::std::vec::Vec<f64>> {
    let __value = matmul(
        a,
        b,
        ::autodiff::__private::Reusable::again(&m),
        ::autodiff::__private::Reusable::again(&k),
        ::autodiff::__private::Reusable::again(&n),
    );
    let __rows = __value.len();
    let __columns = 0usize + a.len() + b.len();
    let mut __jacobian = ::std::vec::Vec::with_capacity(__rows);
    if __rows <= __columns {
        for __i in 0..__rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&__value);
            __d_ret[__i] = <f64 as ::autodiff::__private::One>::one();
            let (_, (__part_0, __part_1)) = matmul_vjp(
                a,
                b,
                ::autodiff::__private::Reusable::again(&m),
                ::autodiff::__private::Reusable::again(&k),
                ::autodiff::__private::Reusable::again(&n),
                __d_ret,
            );
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
            let (_, __column) = matmul_jvp(
                a,
                b,
                ::autodiff::__private::Reusable::again(&m),
                ::autodiff::__private::Reusable::again(&k),
                ::autodiff::__private::Reusable::again(&n),
                (
                    {
                        let mut __t = ::autodiff::__private::zeros_like(&a);
                        if __j >= 0usize && __j < 0usize + a.len() {
                            __t[__j - 0usize] = <f64 as ::autodiff::__private::One>::one();
                        }
                        __t
                    },
                    {
                        let mut __t = ::autodiff::__private::zeros_like(&b);
                        if __j >= (0usize + a.len())
                            && __j < (0usize + a.len()) + b.len()
                        {
                            __t[__j - (0usize + a.len())] = <f64 as ::autodiff::__private::One>::one();
                        }
                        __t
                    },
                ),
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
struct matmul {}
impl ::autodiff::__private::GenericCopy for matmul {
    type Copy = __matmul_generic;
    #[inline(always)]
    fn copy() -> __matmul_generic {
        __matmul_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for matmul {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl matmul {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<f64>,
    ) -> (Vec<f64>, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, (), (), ())) {
        let (value, gradient) = matmul_vjp(a, b, m, k, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1, (), (), ()))
    }
    #[inline]
    fn jvp(
        self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, (), (), ()),
    ) -> (Vec<f64>, Vec<f64>) {
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        matmul_jvp(a, b, m, k, n, (__tangent_0, __tangent_1))
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        d_ret: ::core::option::Option<Vec<f64>>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (Vec<f64>, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, (), (), ())) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {
                ::autodiff::__private::zeros_like(
                    &matmul(
                        ::core::clone::Clone::clone(&a),
                        ::core::clone::Clone::clone(&b),
                        ::core::clone::Clone::clone(&m),
                        ::core::clone::Clone::clone(&k),
                        ::core::clone::Clone::clone(&n),
                    ),
                )
            }
        };
        let (value, gradient) = matmul_vjp(a, b, m, k, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, ()),
                ::autodiff::__private::PassOn::pass_on(__after_3, ()),
                ::autodiff::__private::PassOn::pass_on(__after_4, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, (), (), ()),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (Vec<f64>, Vec<f64>) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        matmul_jvp(a, b, m, k, n, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        a: &[f64],
        b: &[f64],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<f64>,
        grads: (
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            (),
            (),
            (),
        ),
    ) -> Vec<f64> {
        let (__slot_0, __slot_1, __slot_2, __slot_3, __slot_4) = grads;
        let value = if __slot_0.is_none() {
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                b.len(),
            );
            let value = __matmul_vjp_into_without_a(a, b, m, k, n, d_ret, __buffer_1);
            value
        } else if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                a.len(),
            );
            let value = __matmul_vjp_into_without_b(a, b, m, k, n, d_ret, __buffer_0);
            value
        } else {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                a.len(),
            );
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                b.len(),
            );
            let value = __matmul_vjp_into(
                a,
                b,
                m,
                k,
                n,
                d_ret,
                (__buffer_0, __buffer_1),
            );
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
fn __matmul_vjp_into_without_a(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<f64>,
    grad: &mut [f64],
) -> Vec<f64> {
    let __grad_b = grad;
    let mut __d_b = ::autodiff::__private::gradient_buffer("b", __grad_b, &b);
    let __v0 = m * n;
    let mut c = ::std::vec![0.0; __v0];
    for __i in 0..m {
        for __i_1 in 0..n {
            let mut s = 0.0;
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            for __i_2 in 0..k {
                let __v3 = __a_view[__i_2];
                let __v4 = __i_2 * n;
                let __v5 = __v4 + __i_1;
                let __v6 = b[__v5];
                let __v7 = __v3 * __v6;
                let s_1 = s + __v7;
                s = s_1;
            }
            let __v8 = __i * n;
            let __v9 = __v8 + __i_1;
            c[__v9] = s;
        }
    }
    let mut __d_c = ::autodiff::__private::cotangent("d_ret", d_ret, &c);
    for __i in (0..m).rev() {
        for __i_1 in (0..n).rev() {
            let __v8 = __i * n;
            let __v9 = __v8 + __i_1;
            let __d_s = __d_c[__v9];
            __d_c[__v9] = ::autodiff::__private::Zero::zero();
            let mut __d_s_1 = __d_s;
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            for __i_2 in 0..k {
                let __v3 = __a_view[__i_2];
                let __v4 = __i_2 * n;
                let __v5 = __v4 + __i_1;
                let __d_v6 = __d_s_1 * __v3;
                ::autodiff::__private::add_to(&mut __d_b[__v5], __d_v6);
            }
        }
    }
    c
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __matmul_vjp_into_without_b(
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<f64>,
    grad: &mut [f64],
) -> Vec<f64> {
    let __grad_a = grad;
    let mut __d_a = ::autodiff::__private::gradient_buffer("a", __grad_a, &a);
    let __v0 = m * n;
    let mut c = ::std::vec![0.0; __v0];
    for __i in 0..m {
        for __i_1 in 0..n {
            let mut s = 0.0;
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            for __i_2 in 0..k {
                let __v3 = __a_view[__i_2];
                let __v4 = __i_2 * n;
                let __v5 = __v4 + __i_1;
                let __v6 = b[__v5];
                let __v7 = __v3 * __v6;
                let s_1 = s + __v7;
                s = s_1;
            }
            let __v8 = __i * n;
            let __v9 = __v8 + __i_1;
            c[__v9] = s;
        }
    }
    let mut __d_c = ::autodiff::__private::cotangent("d_ret", d_ret, &c);
    for __i in (0..m).rev() {
        for __i_1 in (0..n).rev() {
            let __v8 = __i * n;
            let __v9 = __v8 + __i_1;
            let __d_s = __d_c[__v9];
            __d_c[__v9] = ::autodiff::__private::Zero::zero();
            let mut __d_s_1 = __d_s;
            let __d_a_view: &mut [_] = &mut __d_a[(if 0 < k {
                (__i * k)
            } else {
                0
            })..][..k];
            for __i_2 in 0..k {
                let __v4 = __i_2 * n;
                let __v5 = __v4 + __i_1;
                let __v6 = b[__v5];
                let __d_v3 = __d_s_1 * __v6;
                ::autodiff::__private::add_to(&mut __d_a_view[__i_2], __d_v3);
            }
        }
    }
    c
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct matmul_vjp {}
impl ::autodiff::__private::GenericCopy for matmul_vjp {
    type Copy = matmul_vjp;
    #[inline(always)]
    fn copy() -> matmul_vjp {
        matmul_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl matmul_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__value, (__slot_0, __slot_1, _, _, _)) = <matmul as ::autodiff::__private::GenericCopy>::copy()
            .vjp(a, b, m, k, n, d_ret);
        (__value, (__slot_0, __slot_1))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::call(a, b, m, k, n, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct matmul_jvp {}
impl ::autodiff::__private::GenericCopy for matmul_jvp {
    type Copy = matmul_jvp;
    #[inline(always)]
    fn copy() -> matmul_jvp {
        matmul_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl matmul_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (Vec<__S>, Vec<__S>) {
        let (__tangent_0, __tangent_1) = tangent;
        <matmul as ::autodiff::__private::GenericCopy>::copy()
            .jvp(a, b, m, k, n, (__tangent_0, __tangent_1, (), (), ()))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (Vec<__S>, Vec<__S>) {
        Self::call(a, b, m, k, n, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __matmul_generic<__S: ::autodiff::__private::Float>(
    a: &[__S],
    b: &[__S],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<__S> {
    use ::autodiff::__private::Float as _;
    let mut c = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
            for p in 0..k {
                s = s + (a[i * k + p] * b[p * n + j]);
            }
            c[i * n + j] = s;
        }
    }
    c
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____matmul_generic_vjp_into<__S: ::autodiff::__private::Float>(
    a: &[__S],
    b: &[__S],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<__S>,
    grad: (&mut [__S], &mut [__S]),
) -> Vec<__S> {
    let (__grad_a, __grad_b) = grad;
    use ::autodiff::__private::Float as _;
    let mut __d_a = ::autodiff::__private::gradient_buffer("a", __grad_a, &a);
    let mut __d_b = ::autodiff::__private::gradient_buffer("b", __grad_b, &b);
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = m * n;
    let mut c = ::std::vec![__v1; __v2];
    for __i in 0..m {
        for __i_1 in 0..n {
            let s = ::autodiff::__private::lit::<__S>(__v0);
            let mut s_1 = s;
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            for __i_2 in 0..k {
                let __v5 = __a_view[__i_2];
                let __v6 = __i_2 * n;
                let __v7 = __v6 + __i_1;
                let __v8 = b[__v7];
                let __v9 = __v5 * __v8;
                let s_2 = s_1 + __v9;
                s_1 = s_2;
            }
            let __v10 = __i * n;
            let __v11 = __v10 + __i_1;
            c[__v11] = s_1;
        }
    }
    let mut __d_c = ::autodiff::__private::cotangent("d_ret", d_ret, &c);
    for __i in (0..m).rev() {
        for __i_1 in (0..n).rev() {
            let __v10 = __i * n;
            let __v11 = __v10 + __i_1;
            let __d_s_1 = __d_c[__v11];
            __d_c[__v11] = ::autodiff::__private::Zero::zero();
            let mut __d_s_1_1 = __d_s_1;
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            let __d_a_view: &mut [_] = &mut __d_a[(if 0 < k {
                (__i * k)
            } else {
                0
            })..][..k];
            for __i_2 in 0..k {
                let __v5 = __a_view[__i_2];
                let __v6 = __i_2 * n;
                let __v7 = __v6 + __i_1;
                let __v8 = b[__v7];
                let __d_v5 = __d_s_1_1 * __v8;
                let __d_v8 = __d_s_1_1 * __v5;
                ::autodiff::__private::add_to(&mut __d_b[__v7], __d_v8);
                ::autodiff::__private::add_to(&mut __d_a_view[__i_2], __d_v5);
            }
        }
    }
    c
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __matmul_generic_vjp<__S: ::autodiff::__private::Float>(
    a: &[__S],
    b: &[__S],
    m: usize,
    k: usize,
    n: usize,
    d_ret: Vec<__S>,
) -> (Vec<__S>, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
    let mut __grad_a = ::autodiff::__private::zeros_like(&a[..]);
    let mut __grad_b = ::autodiff::__private::zeros_like(&b[..]);
    let value = ____matmul_generic_vjp_into(
        a,
        b,
        m,
        k,
        n,
        d_ret,
        (&mut __grad_a, &mut __grad_b),
    );
    (value, (__grad_a, __grad_b))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __matmul_generic_jvp<__S: ::autodiff::__private::Float>(
    a: &[__S],
    b: &[__S],
    m: usize,
    k: usize,
    n: usize,
    tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
) -> (Vec<__S>, Vec<__S>) {
    use ::autodiff::__private::Float as _;
    let (__dot_a, __dot_b) = tangent;
    let mut __dot_a = ::autodiff::__private::tangent("a", __dot_a, &a);
    let mut __dot_b = ::autodiff::__private::tangent("b", __dot_b, &b);
    let __v0 = 0.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = m * n;
    let mut c = ::std::vec![__v1; __v2];
    let mut __dot_c = ::autodiff::__private::zeros_like(&c);
    for __i in 0..m {
        for __i_1 in 0..n {
            let s = ::autodiff::__private::lit::<__S>(__v0);
            let mut s_1 = s;
            let mut __dot_s_1 = <__S as ::autodiff::__private::Zero>::zero();
            let __a_view: &[_] = &a[(if 0 < k { (__i * k) } else { 0 })..][..k];
            let __dot_a_view: &[_] = &__dot_a[(if 0 < k {
                (__i * k)
            } else {
                0
            })..][..k];
            for __i_2 in 0..k {
                let __v3 = __i * k;
                let __v4 = __v3 + __i_2;
                let __v5 = __a_view[__i_2];
                let __dot_v5 = __dot_a_view[__i_2];
                let __v6 = __i_2 * n;
                let __v7 = __v6 + __i_1;
                let __v8 = b[__v7];
                let __dot_v8 = __dot_b[__v7];
                let __v9 = __v5 * __v8;
                let __dot_v9 = __dot_v5 * __v8 + __dot_v8 * __v5;
                let s_2 = s_1 + __v9;
                let __dot_s_2 = __dot_s_1 + __dot_v9;
                (s_1, __dot_s_1) = (s_2, __dot_s_2);
            }
            let __v10 = __i * n;
            let __v11 = __v10 + __i_1;
            c[__v11] = s_1;
            __dot_c[__v11] = __dot_s_1;
        }
    }
    (c, __dot_c)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __matmul_generic {}
impl ::autodiff::__private::GenericCopy for __matmul_generic {
    type Copy = __matmul_generic;
    #[inline(always)]
    fn copy() -> __matmul_generic {
        __matmul_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __matmul_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __matmul_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
    ) -> Vec<__S> {
        __matmul_generic(a, b, m, k, n)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
    ) -> Vec<__S> {
        __matmul_generic(a, b, m, k, n)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<__S>,
    ) -> (Vec<__S>, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, (), (), ())) {
        let (value, gradient) = __matmul_generic_vjp(a, b, m, k, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1, (), (), ()))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, (), (), ()),
    ) -> (Vec<__S>, Vec<__S>) {
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        __matmul_generic_jvp(a, b, m, k, n, (__tangent_0, __tangent_1))
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        d_ret: ::core::option::Option<Vec<__S>>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (Vec<__S>, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, (), (), ())) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => {
                ::autodiff::__private::zeros_like(
                    &__matmul_generic(
                        ::core::clone::Clone::clone(&a),
                        ::core::clone::Clone::clone(&b),
                        ::core::clone::Clone::clone(&m),
                        ::core::clone::Clone::clone(&k),
                        ::core::clone::Clone::clone(&n),
                    ),
                )
            }
        };
        let (value, gradient) = __matmul_generic_vjp(a, b, m, k, n, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, ()),
                ::autodiff::__private::PassOn::pass_on(__after_3, ()),
                ::autodiff::__private::PassOn::pass_on(__after_4, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, (), (), ()),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (Vec<__S>, Vec<__S>) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        __matmul_generic_jvp(a, b, m, k, n, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        a: &[__S],
        b: &[__S],
        m: usize,
        k: usize,
        n: usize,
        d_ret: Vec<__S>,
        grads: (
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            (),
            (),
            (),
        ),
    ) -> Vec<__S> {
        let (__slot_0, __slot_1, __slot_2, __slot_3, __slot_4) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            a.len(),
        );
        let mut __scratch_1 = ::autodiff::__private::Scratch::new();
        let __buffer_1 = ::autodiff::__private::slot_or_scratch(
            __slot_1,
            &mut __scratch_1,
            b.len(),
        );
        let value = ____matmul_generic_vjp_into(
            a,
            b,
            m,
            k,
            n,
            d_ret,
            (__buffer_0, __buffer_1),
        );
        value
    }
}
fn logistic(x: f64, levels: usize) -> f64 {
    let mut l = x;
    for _ in 0..levels {
        l = 4.0 * l * (1.0 - l);
    }
    l
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_grad(x: f64, levels: usize) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __logistic_vjp_into(x, levels, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_grad_into(x: f64, levels: usize, grad: &mut f64) -> f64 {
    let __grad_x = grad;
    __logistic_vjp_into(x, levels, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __logistic_vjp_into(x: f64, levels: usize, d_ret: f64, grad: &mut f64) -> f64 {
    ____logistic_generic_vjp_into(x, levels, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_vjp(x: f64, levels: usize, d_ret: f64) -> (f64, f64) {
    let mut __grad_x = 0.0;
    let value = __logistic_vjp_into(x, levels, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_jvp(x: f64, levels: usize, tangent: f64) -> (f64, f64) {
    __logistic_generic_jvp(x, levels, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logistic {}
impl ::autodiff::__private::GenericCopy for logistic {
    type Copy = __logistic_generic;
    #[inline(always)]
    fn copy() -> __logistic_generic {
        __logistic_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for logistic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl logistic {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, x: f64, levels: usize, d_ret: f64) -> (f64, (f64, ())) {
        let (value, gradient) = logistic_vjp(x, levels, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    fn jvp(self, x: f64, levels: usize, tangents: (f64, ())) -> (f64, f64) {
        let (__tangent_0, _) = tangents;
        logistic_jvp(x, levels, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        x: f64,
        levels: usize,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>, ()),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = 0.0;
        let value = __logistic_vjp_into(x, levels, d_ret, &mut __buffer_0);
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
struct logistic_grad {}
impl ::autodiff::__private::GenericCopy for logistic_grad {
    type Copy = logistic_grad;
    #[inline(always)]
    fn copy() -> logistic_grad {
        logistic_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logistic_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, levels: usize) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <logistic as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, levels, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
    ) -> (__S, __S) {
        Self::call(x, levels)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logistic_vjp {}
impl ::autodiff::__private::GenericCopy for logistic_vjp {
    type Copy = logistic_vjp;
    #[inline(always)]
    fn copy() -> logistic_vjp {
        logistic_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logistic_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        levels: usize,
        d_ret: __S,
    ) -> (__S, __S) {
        let (__value, (__slot_0, _)) = <logistic as ::autodiff::__private::GenericCopy>::copy()
            .vjp(x, levels, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(x, levels, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct logistic_jvp {}
impl ::autodiff::__private::GenericCopy for logistic_jvp {
    type Copy = logistic_jvp;
    #[inline(always)]
    fn copy() -> logistic_jvp {
        logistic_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logistic_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        x: __S,
        levels: usize,
        tangent: __S,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <logistic as ::autodiff::__private::GenericCopy>::copy()
            .jvp(x, levels, (__tangent_0, ()))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(x, levels, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logistic_generic<__S: ::autodiff::__private::Float>(x: __S, levels: usize) -> __S {
    use ::autodiff::__private::Float as _;
    let mut l = x;
    for _ in 0..levels {
        l = ::autodiff::__private::lit::<__S>(4.0 as f64) * l
            * (::autodiff::__private::lit::<__S>(1.0 as f64) - l);
    }
    l
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____logistic_generic_vjp_into<__S: ::autodiff::__private::Float>(
    x: __S,
    levels: usize,
    d_ret: __S,
    grad: &mut __S,
) -> __S {
    let __grad_x = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_l = ::autodiff::__private::Tape::new();
    let mut l = x;
    __tape_l.reserve(::core::iter::Iterator::size_hint(&(0..levels)).0);
    for __i in 0..levels {
        __tape_l.push(l);
        let __v0 = 4.0 as f64;
        let __v1 = ::autodiff::__private::lit::<__S>(__v0);
        let __v2 = __v1 * l;
        let __v3 = 1.0 as f64;
        let __v4 = ::autodiff::__private::lit::<__S>(__v3);
        let __v5 = __v4 - l;
        let l_1 = __v2 * __v5;
        l = l_1;
    }
    let mut __tape_l = __tape_l.reader();
    let mut __d_l = d_ret;
    for __i in (0..levels).rev() {
        let l = __tape_l.pop();
        let __v0 = 4.0 as f64;
        let __v1 = ::autodiff::__private::lit::<__S>(__v0);
        let __v2 = __v1 * l;
        let __v3 = 1.0 as f64;
        let __v4 = ::autodiff::__private::lit::<__S>(__v3);
        let __v5 = __v4 - l;
        let __d_v2 = __d_l * __v5;
        let __d_v5 = __d_l * __v2;
        let __d_l_1 = -__d_v5;
        let __d_l_2 = __d_l_1 + __d_v2 * __v1;
        __d_l = __d_l_2;
    }
    *__grad_x = __d_l;
    l
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logistic_generic_vjp<__S: ::autodiff::__private::Float>(
    x: __S,
    levels: usize,
    d_ret: __S,
) -> (__S, __S) {
    let mut __grad_x = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____logistic_generic_vjp_into(x, levels, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logistic_generic_jvp<__S: ::autodiff::__private::Float>(
    x: __S,
    levels: usize,
    tangent: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __dot_x = tangent;
    let mut l = x;
    let mut __dot_l = __dot_x;
    for __i in 0..levels {
        let __v0 = 4.0 as f64;
        let __v1 = ::autodiff::__private::lit::<__S>(__v0);
        let __v2 = __v1 * l;
        let __dot_v2 = __dot_l * __v1;
        let __v3 = 1.0 as f64;
        let __v4 = ::autodiff::__private::lit::<__S>(__v3);
        let __v5 = __v4 - l;
        let __dot_v5 = -__dot_l;
        let l_1 = __v2 * __v5;
        let __dot_l_1 = __dot_v2 * __v5 + __dot_v5 * __v2;
        (l, __dot_l) = (l_1, __dot_l_1);
    }
    (l, __dot_l)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __logistic_generic {}
impl ::autodiff::__private::GenericCopy for __logistic_generic {
    type Copy = __logistic_generic;
    #[inline(always)]
    fn copy() -> __logistic_generic {
        __logistic_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __logistic_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __logistic_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(x: __S, levels: usize) -> __S {
        __logistic_generic(x, levels)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, x: __S, levels: usize) -> __S {
        __logistic_generic(x, levels)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
        d_ret: __S,
    ) -> (__S, (__S, ())) {
        let (value, gradient) = __logistic_generic_vjp(x, levels, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0, ()))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
        tangents: (__S, ()),
    ) -> (__S, __S) {
        let (__tangent_0, _) = tangents;
        __logistic_generic_jvp(x, levels, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        x: __S,
        levels: usize,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>, ()),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____logistic_generic_vjp_into(x, levels, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
}
