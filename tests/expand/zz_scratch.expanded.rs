use autodiff::{differentiable, Differentiable};
fn rows_times(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let mut r = 0.0;
        for j in 0..x.len() {
            r += m[i][j] * x[j];
        }
        s += r * r;
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rows_times_grad(
    m: &[Vec<f64>],
    x: &[f64],
) -> (f64, (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>)) {
    rows_times_vjp(m, x, 1.0)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rows_times_grad_into(
    m: &[Vec<f64>],
    x: &[f64],
    grad: (&mut [::std::vec::Vec<f64>], &mut [f64]),
) -> f64 {
    let (value, (__grad_m_part, __grad_x_part)) = rows_times_grad(m, x);
    let (__grad_m, __grad_x) = grad;
    __grad_m.clone_from_slice(&__grad_m_part[..]);
    ::autodiff::__private::copy_into("x", &mut __grad_x[..], &__grad_x_part[..]);
    value
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rows_times_vjp(
    m: &[Vec<f64>],
    x: &[f64],
    d_ret: f64,
) -> (f64, (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>)) {
    let __matrix_m = m;
    let m = ::autodiff::__private::flatten(&__matrix_m);
    let mut __tape_r = ::autodiff::__private::Tape::new();
    let mut __d_m = ::autodiff::__private::zeros_like(&m);
    let mut __d_x = ::autodiff::__private::zeros_like(&x);
    let mut m_rows = ::autodiff::__private::row_offsets(&__matrix_m);
    let __v0 = m_rows.len();
    let __v1 = __v0 - 1;
    let mut s = 0.0;
    __tape_r.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
    for __i in 0..__v1 {
        let __v2 = x.len();
        let mut r = 0.0;
        for __i_1 in 0..__v2 {
            let __v3 = m_rows[__i];
            let __v6 = __v3 + __i_1;
            let __v7 = m[__v6];
            let __v8 = x[__i_1];
            let __v9 = __v7 * __v8;
            let r_1 = r + __v9;
            r = r_1;
        }
        __tape_r.push(r);
        let __v10 = r * r;
        let s_1 = s + __v10;
        s = s_1;
    }
    let mut __tape_r = __tape_r.reader();
    let mut __d_s = d_ret;
    for __i in (0..__v1).rev() {
        let r = __tape_r.pop();
        let __v2 = x.len();
        let __d_r = __d_s * (r + r);
        let mut __d_r_1 = __d_r;
        for __i_1 in 0..__v2 {
            let __v3 = m_rows[__i];
            let __v6 = __v3 + __i_1;
            let __v7 = m[__v6];
            let __v8 = x[__i_1];
            let __d_v7 = __d_r_1 * __v8;
            let __d_v8 = __d_r_1 * __v7;
            ::autodiff::__private::add_to(&mut __d_x[__i_1], __d_v8);
            ::autodiff::__private::add_to(&mut __d_m[__v6], __d_v7);
        }
    }
    (s, (::autodiff::__private::unflatten_like(&__matrix_m, &__d_m), __d_x))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn rows_times_jvp(
    m: &[Vec<f64>],
    x: &[f64],
    tangent: (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>),
) -> (f64, f64) {
    let __matrix_m = m;
    let m = ::autodiff::__private::flatten(&__matrix_m);
    let (__dot_m, __dot_x) = tangent;
    let mut __dot_m = ::autodiff::__private::matrix_tangent("m", &__dot_m, &m);
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut m_rows = ::autodiff::__private::row_offsets(&__matrix_m);
    let __v0 = m_rows.len();
    let __v1 = __v0 - 1;
    let mut s = 0.0;
    let mut __dot_s = 0.0;
    for __i in 0..__v1 {
        let __v2 = x.len();
        let mut r = 0.0;
        let mut __dot_r = 0.0;
        for __i_1 in 0..__v2 {
            let __v3 = m_rows[__i];
            let __v4 = __i + 1;
            let __v5 = m_rows[__v4];
            let __v6 = __v3 + __i_1;
            let __v7 = m[__v6];
            let __dot_v7 = __dot_m[__v6];
            let __v8 = x[__i_1];
            let __dot_v8 = __dot_x[__i_1];
            let __v9 = __v7 * __v8;
            let __dot_v9 = __dot_v7 * __v8 + __dot_v8 * __v7;
            let r_1 = r + __v9;
            let __dot_r_1 = __dot_r + __dot_v9;
            (r, __dot_r) = (r_1, __dot_r_1);
        }
        let __v10 = r * r;
        let __dot_v10 = __dot_r * (r + r);
        let s_1 = s + __v10;
        let __dot_s_1 = __dot_s + __dot_v10;
        (s, __dot_s) = (s_1, __dot_s_1);
    }
    (s, __dot_s)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct rows_times {}
impl ::autodiff::__private::GenericCopy for rows_times {
    type Copy = __rows_times_generic;
    #[inline(always)]
    fn copy() -> __rows_times_generic {
        __rows_times_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rows_times {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rows_times {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        m: &[Vec<f64>],
        x: &[f64],
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>)) {
        rows_times_vjp(m, x, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        m: &[Vec<f64>],
        x: &[f64],
        tangents: (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        rows_times_jvp(m, x, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        m: &[Vec<f64>],
        x: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<::std::vec::Vec<f64>>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
        ),
    ) -> (f64, (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = rows_times_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        m: &[Vec<f64>],
        x: &[f64],
        tangents: (::std::vec::Vec<::std::vec::Vec<f64>>, ::std::vec::Vec<f64>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        rows_times_jvp(m, x, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        m: &[Vec<f64>],
        x: &[f64],
        d_ret: f64,
        grads: ((), ::core::option::Option<&mut [f64]>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = rows_times_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        let _ = __slot_0;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __rows_times_generic<__S: ::autodiff::__private::Float>(
    m: &[Vec<__S>],
    x: &[__S],
) -> __S {
    use ::autodiff::__private::Float as _;
    let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for i in 0..m.len() {
        let mut r = ::autodiff::__private::lit::<__S>(0.0 as f64);
        for j in 0..x.len() {
            r = r + (m[i][j] * x[j]);
        }
        s = s + (r * r);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __rows_times_generic_vjp<__S: ::autodiff::__private::Float>(
    m: &[Vec<__S>],
    x: &[__S],
    d_ret: __S,
) -> (__S, (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>)) {
    use ::autodiff::__private::Float as _;
    let __matrix_m = m;
    let m = ::autodiff::__private::flatten(&__matrix_m);
    let mut __tape_r_1 = ::autodiff::__private::Tape::new();
    let mut __d_m = ::autodiff::__private::zeros_like(&m);
    let mut __d_x = ::autodiff::__private::zeros_like(&x);
    let mut m_rows = ::autodiff::__private::row_offsets(&__matrix_m);
    let __v0 = 0.0 as f64;
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = m_rows.len();
    let __v2 = __v1 - 1;
    let mut s_1 = s;
    __tape_r_1.reserve(::core::iter::Iterator::size_hint(&(0..__v2)).0);
    for __i in 0..__v2 {
        let r = ::autodiff::__private::lit::<__S>(__v0);
        let __v3 = x.len();
        let mut r_1 = r;
        for __i_1 in 0..__v3 {
            let __v4 = m_rows[__i];
            let __v7 = __v4 + __i_1;
            let __v8 = m[__v7];
            let __v9 = x[__i_1];
            let __v10 = __v8 * __v9;
            let r_2 = r_1 + __v10;
            r_1 = r_2;
        }
        __tape_r_1.push(r_1);
        let __v11 = r_1 * r_1;
        let s_2 = s_1 + __v11;
        s_1 = s_2;
    }
    let mut __tape_r_1 = __tape_r_1.reader();
    let mut __d_s_1 = d_ret;
    for __i in (0..__v2).rev() {
        let r_1 = __tape_r_1.pop();
        let __v3 = x.len();
        let __d_r_1 = __d_s_1 * (r_1 + r_1);
        let mut __d_r_1_1 = __d_r_1;
        for __i_1 in 0..__v3 {
            let __v4 = m_rows[__i];
            let __v7 = __v4 + __i_1;
            let __v8 = m[__v7];
            let __v9 = x[__i_1];
            let __d_v8 = __d_r_1_1 * __v9;
            let __d_v9 = __d_r_1_1 * __v8;
            ::autodiff::__private::add_to(&mut __d_x[__i_1], __d_v9);
            ::autodiff::__private::add_to(&mut __d_m[__v7], __d_v8);
        }
    }
    (s_1, (::autodiff::__private::unflatten_like(&__matrix_m, &__d_m), __d_x))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __rows_times_generic_jvp<__S: ::autodiff::__private::Float>(
    m: &[Vec<__S>],
    x: &[__S],
    tangent: (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __matrix_m = m;
    let m = ::autodiff::__private::flatten(&__matrix_m);
    let (__dot_m, __dot_x) = tangent;
    let mut __dot_m = ::autodiff::__private::matrix_tangent("m", &__dot_m, &m);
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut m_rows = ::autodiff::__private::row_offsets(&__matrix_m);
    let __v0 = 0.0 as f64;
    let s = ::autodiff::__private::lit::<__S>(__v0);
    let __v1 = m_rows.len();
    let __v2 = __v1 - 1;
    let mut s_1 = s;
    let mut __dot_s_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i in 0..__v2 {
        let r = ::autodiff::__private::lit::<__S>(__v0);
        let __v3 = x.len();
        let mut r_1 = r;
        let mut __dot_r_1 = <__S as ::autodiff::__private::Zero>::zero();
        for __i_1 in 0..__v3 {
            let __v4 = m_rows[__i];
            let __v5 = __i + 1;
            let __v6 = m_rows[__v5];
            let __v7 = __v4 + __i_1;
            let __v8 = m[__v7];
            let __dot_v8 = __dot_m[__v7];
            let __v9 = x[__i_1];
            let __dot_v9 = __dot_x[__i_1];
            let __v10 = __v8 * __v9;
            let __dot_v10 = __dot_v8 * __v9 + __dot_v9 * __v8;
            let r_2 = r_1 + __v10;
            let __dot_r_2 = __dot_r_1 + __dot_v10;
            (r_1, __dot_r_1) = (r_2, __dot_r_2);
        }
        let __v11 = r_1 * r_1;
        let __dot_v11 = __dot_r_1 * (r_1 + r_1);
        let s_2 = s_1 + __v11;
        let __dot_s_2 = __dot_s_1 + __dot_v11;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __rows_times_generic {}
impl ::autodiff::__private::GenericCopy for __rows_times_generic {
    type Copy = __rows_times_generic;
    #[inline(always)]
    fn copy() -> __rows_times_generic {
        __rows_times_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __rows_times_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __rows_times_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(m: &[Vec<__S>], x: &[__S]) -> __S {
        __rows_times_generic(m, x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
    ) -> __S {
        __rows_times_generic(m, x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>)) {
        __rows_times_generic_vjp(m, x, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
        tangents: (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        __rows_times_generic_jvp(m, x, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<::std::vec::Vec<__S>>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
        ),
    ) -> (__S, (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __rows_times_generic_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
        tangents: (::std::vec::Vec<::std::vec::Vec<__S>>, ::std::vec::Vec<__S>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        __rows_times_generic_jvp(m, x, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        m: &[Vec<__S>],
        x: &[__S],
        d_ret: __S,
        grads: ((), ::core::option::Option<&mut [__S]>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = __rows_times_generic_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        let _ = __slot_0;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
}
fn quadratic(a: [[f64; 3]; 3], x: [f64; 3]) -> f64 {
    let mut s = a[0][1].sin();
    for i in 0..3 {
        for j in 0..3 {
            s += x[i] * a[i][j] * x[j];
        }
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn quadratic_grad(a: [[f64; 3]; 3], x: [f64; 3]) -> (f64, ([[f64; 3]; 3], [f64; 3])) {
    quadratic_vjp(a, x, 1.0)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn quadratic_grad_into(
    a: [[f64; 3]; 3],
    x: [f64; 3],
    grad: (&mut [[f64; 3]; 3], &mut [f64; 3]),
) -> f64 {
    let (value, (__grad_a_part, __grad_x_part)) = quadratic_grad(a, x);
    let (__grad_a, __grad_x) = grad;
    __grad_a.clone_from_slice(&__grad_a_part[..]);
    ::autodiff::__private::copy_into("x", &mut __grad_x[..], &__grad_x_part[..]);
    value
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn quadratic_vjp(
    a: [[f64; 3]; 3],
    x: [f64; 3],
    d_ret: f64,
) -> (f64, ([[f64; 3]; 3], [f64; 3])) {
    let __matrix_a = a;
    let a = ::autodiff::__private::flatten(&__matrix_a);
    let mut __d_a = ::autodiff::__private::zeros_like(&a);
    let mut __d_x = ::autodiff::__private::zeros_like(&x);
    let mut a_rows = ::autodiff::__private::row_offsets(&__matrix_a);
    let __v0 = a_rows[0];
    let __v3 = __v0 + 1;
    let __v4 = a[__v3];
    let s = __v4.sin();
    let mut s_1 = s;
    for __i in 0..3 {
        let mut s_2 = s_1;
        let __x_view: &[_] = &x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __v6 = a_rows[__i];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __v11 = __v5 * __v10;
            let __v12 = __x_view[__i_1];
            let __v13 = __v11 * __v12;
            let s_3 = s_2 + __v13;
            s_2 = s_3;
        }
        s_1 = s_2;
    }
    let mut __d_s_1 = d_ret;
    for __i in (0..3).rev() {
        let mut __d_s_2 = __d_s_1;
        let mut __sum_x = 0.0;
        let __x_view: &[_] = &x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __v6 = a_rows[__i];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __v11 = __v5 * __v10;
            let __v12 = __x_view[__i_1];
            let __d_v11 = __d_s_2 * __v12;
            let __d_v12 = __d_s_2 * __v11;
            ::autodiff::__private::add_to(&mut __d_x[__i_1], __d_v12);
            let __d_v5 = __d_v11 * __v10;
            let __d_v10 = __d_v11 * __v5;
            ::autodiff::__private::add_to(&mut __d_a[__v9], __d_v10);
            ::autodiff::__private::add_to(&mut __sum_x, __d_v5);
        }
        if 0 < 3 {
            ::autodiff::__private::add_to(&mut __d_x[__i], __sum_x);
        }
        __d_s_1 = __d_s_2;
    }
    let __d_v4 = __d_s_1 * ::autodiff::__private::Float::cos(__v4);
    ::autodiff::__private::add_to(&mut __d_a[__v3], __d_v4);
    (s_1, (::autodiff::__private::unflatten_like(&__matrix_a, &__d_a), __d_x))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn quadratic_jvp(
    a: [[f64; 3]; 3],
    x: [f64; 3],
    tangent: ([[f64; 3]; 3], [f64; 3]),
) -> (f64, f64) {
    let __matrix_a = a;
    let a = ::autodiff::__private::flatten(&__matrix_a);
    let (__dot_a, __dot_x) = tangent;
    let mut __dot_a = ::autodiff::__private::matrix_tangent("a", &__dot_a, &a);
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut a_rows = ::autodiff::__private::row_offsets(&__matrix_a);
    let __v0 = a_rows[0];
    let __v3 = __v0 + 1;
    let __v4 = a[__v3];
    let __dot_v4 = __dot_a[__v3];
    let s = __v4.sin();
    let __dot_s = __dot_v4 * ::autodiff::__private::Float::cos(__v4);
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    for __i in 0..3 {
        let mut s_2 = s_1;
        let mut __dot_s_2 = __dot_s_1;
        let __x_view: &[_] = &x[..3];
        let __dot_x_view: &[_] = &__dot_x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __dot_v5 = __dot_x[__i];
            let __v6 = a_rows[__i];
            let __v7 = __i + 1;
            let __v8 = a_rows[__v7];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __dot_v10 = __dot_a[__v9];
            let __v11 = __v5 * __v10;
            let __dot_v11 = __dot_v5 * __v10 + __dot_v10 * __v5;
            let __v12 = __x_view[__i_1];
            let __dot_v12 = __dot_x_view[__i_1];
            let __v13 = __v11 * __v12;
            let __dot_v13 = __dot_v11 * __v12 + __dot_v12 * __v11;
            let s_3 = s_2 + __v13;
            let __dot_s_3 = __dot_s_2 + __dot_v13;
            (s_2, __dot_s_2) = (s_3, __dot_s_3);
        }
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct quadratic {}
impl ::autodiff::__private::GenericCopy for quadratic {
    type Copy = __quadratic_generic;
    #[inline(always)]
    fn copy() -> __quadratic_generic {
        __quadratic_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for quadratic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl quadratic {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        a: [[f64; 3]; 3],
        x: [f64; 3],
        d_ret: f64,
    ) -> (f64, ([[f64; 3]; 3], [f64; 3])) {
        quadratic_vjp(a, x, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        a: [[f64; 3]; 3],
        x: [f64; 3],
        tangents: ([[f64; 3]; 3], [f64; 3]),
    ) -> (f64, f64) {
        quadratic_jvp(a, x, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        a: [[f64; 3]; 3],
        x: [f64; 3],
        d_ret: f64,
        grads: ((), ::core::option::Option<&mut [f64]>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = quadratic_vjp(a, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        let _ = __slot_0;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __quadratic_generic<__S: ::autodiff::__private::Float>(
    a: [[__S; 3]; 3],
    x: [__S; 3],
) -> __S {
    use ::autodiff::__private::Float as _;
    let mut s = a[0][1].sin();
    for i in 0..3 {
        for j in 0..3 {
            s = s + (x[i] * a[i][j] * x[j]);
        }
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __quadratic_generic_vjp<__S: ::autodiff::__private::Float>(
    a: [[__S; 3]; 3],
    x: [__S; 3],
    d_ret: __S,
) -> (__S, ([[__S; 3]; 3], [__S; 3])) {
    use ::autodiff::__private::Float as _;
    let __matrix_a = a;
    let a = ::autodiff::__private::flatten(&__matrix_a);
    let mut __d_a = ::autodiff::__private::zeros_like(&a);
    let mut __d_x = ::autodiff::__private::zeros_like(&x);
    let mut a_rows = ::autodiff::__private::row_offsets(&__matrix_a);
    let __v0 = a_rows[0];
    let __v3 = __v0 + 1;
    let __v4 = a[__v3];
    let s = __v4.sin();
    let mut s_1 = s;
    for __i in 0..3 {
        let mut s_2 = s_1;
        let __x_view: &[_] = &x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __v6 = a_rows[__i];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __v11 = __v5 * __v10;
            let __v12 = __x_view[__i_1];
            let __v13 = __v11 * __v12;
            let s_3 = s_2 + __v13;
            s_2 = s_3;
        }
        s_1 = s_2;
    }
    let mut __d_s_1 = d_ret;
    for __i in (0..3).rev() {
        let mut __d_s_2 = __d_s_1;
        let mut __sum_x = <__S as ::autodiff::__private::Zero>::zero();
        let __x_view: &[_] = &x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __v6 = a_rows[__i];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __v11 = __v5 * __v10;
            let __v12 = __x_view[__i_1];
            let __d_v11 = __d_s_2 * __v12;
            let __d_v12 = __d_s_2 * __v11;
            ::autodiff::__private::add_to(&mut __d_x[__i_1], __d_v12);
            let __d_v5 = __d_v11 * __v10;
            let __d_v10 = __d_v11 * __v5;
            ::autodiff::__private::add_to(&mut __d_a[__v9], __d_v10);
            ::autodiff::__private::add_to(&mut __sum_x, __d_v5);
        }
        if 0 < 3 {
            ::autodiff::__private::add_to(&mut __d_x[__i], __sum_x);
        }
        __d_s_1 = __d_s_2;
    }
    let __d_v4 = __d_s_1 * ::autodiff::__private::Float::cos(__v4);
    ::autodiff::__private::add_to(&mut __d_a[__v3], __d_v4);
    (s_1, (::autodiff::__private::unflatten_like(&__matrix_a, &__d_a), __d_x))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __quadratic_generic_jvp<__S: ::autodiff::__private::Float>(
    a: [[__S; 3]; 3],
    x: [__S; 3],
    tangent: ([[__S; 3]; 3], [__S; 3]),
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __matrix_a = a;
    let a = ::autodiff::__private::flatten(&__matrix_a);
    let (__dot_a, __dot_x) = tangent;
    let mut __dot_a = ::autodiff::__private::matrix_tangent("a", &__dot_a, &a);
    let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
    let mut a_rows = ::autodiff::__private::row_offsets(&__matrix_a);
    let __v0 = a_rows[0];
    let __v3 = __v0 + 1;
    let __v4 = a[__v3];
    let __dot_v4 = __dot_a[__v3];
    let s = __v4.sin();
    let __dot_s = __dot_v4 * ::autodiff::__private::Float::cos(__v4);
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    for __i in 0..3 {
        let mut s_2 = s_1;
        let mut __dot_s_2 = __dot_s_1;
        let __x_view: &[_] = &x[..3];
        let __dot_x_view: &[_] = &__dot_x[..3];
        for __i_1 in 0..3 {
            let __v5 = x[__i];
            let __dot_v5 = __dot_x[__i];
            let __v6 = a_rows[__i];
            let __v7 = __i + 1;
            let __v8 = a_rows[__v7];
            let __v9 = __v6 + __i_1;
            let __v10 = a[__v9];
            let __dot_v10 = __dot_a[__v9];
            let __v11 = __v5 * __v10;
            let __dot_v11 = __dot_v5 * __v10 + __dot_v10 * __v5;
            let __v12 = __x_view[__i_1];
            let __dot_v12 = __dot_x_view[__i_1];
            let __v13 = __v11 * __v12;
            let __dot_v13 = __dot_v11 * __v12 + __dot_v12 * __v11;
            let s_3 = s_2 + __v13;
            let __dot_s_3 = __dot_s_2 + __dot_v13;
            (s_2, __dot_s_2) = (s_3, __dot_s_3);
        }
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    (s_1, __dot_s_1)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __quadratic_generic {}
impl ::autodiff::__private::GenericCopy for __quadratic_generic {
    type Copy = __quadratic_generic;
    #[inline(always)]
    fn copy() -> __quadratic_generic {
        __quadratic_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __quadratic_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __quadratic_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(a: [[__S; 3]; 3], x: [__S; 3]) -> __S {
        __quadratic_generic(a, x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        a: [[__S; 3]; 3],
        x: [__S; 3],
    ) -> __S {
        __quadratic_generic(a, x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        a: [[__S; 3]; 3],
        x: [__S; 3],
        d_ret: __S,
    ) -> (__S, ([[__S; 3]; 3], [__S; 3])) {
        __quadratic_generic_vjp(a, x, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        a: [[__S; 3]; 3],
        x: [__S; 3],
        tangents: ([[__S; 3]; 3], [__S; 3]),
    ) -> (__S, __S) {
        __quadratic_generic_jvp(a, x, tangents)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        a: [[__S; 3]; 3],
        x: [__S; 3],
        d_ret: __S,
        grads: ((), ::core::option::Option<&mut [__S]>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = __quadratic_generic_vjp(a, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        let _ = __slot_0;
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Model {
    w: Vec<f64>,
    b: f64,
    a: [f64; 2],
    #[no_grad]
    n: usize,
}
fn model_loss(m: &Model, x: f64) -> f64 {
    let mut s = m.b * x + m.a[0] * m.a[1];
    for i in 0..m.n {
        s += (m.w[i] * x).tanh() * m.a[i % 2];
    }
    s * s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_loss_grad(m: &Model, x: f64) -> (f64, (Model, f64)) {
    model_loss_vjp(m, x, 1.0)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_loss_grad_into(m: &Model, x: f64, grad: (&mut Model, &mut f64)) -> f64 {
    let (value, (__grad_m_part, __grad_x_part)) = model_loss_grad(m, x);
    let (__grad_m, __grad_x) = grad;
    *__grad_m = __grad_m_part;
    *__grad_x = __grad_x_part;
    value
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_loss_vjp(m: &Model, x: f64, d_ret: f64) -> (f64, (Model, f64)) {
    let __m_b = m.b;
    let __m_a = &m.a;
    let __m_n = m.n;
    let __m_w = &m.w;
    let (__value, __gradient) = {
        let mut __tape_v6 = ::autodiff::__private::Tape::new();
        let mut __d_m_a = ::autodiff::__private::zeros_like(&__m_a);
        let mut __d_m_w = ::autodiff::__private::zeros_like(&__m_w);
        let __v0 = __m_b * x;
        let __v1 = __m_a[0];
        let __v2 = __m_a[1];
        let __v3 = __v1 * __v2;
        let s = __v0 + __v3;
        let mut s_1 = s;
        __tape_v6.reserve(::core::iter::Iterator::size_hint(&(0..__m_n)).0);
        let ____m_w_view: &[_] = &__m_w[..__m_n];
        for __i in 0..__m_n {
            let __v4 = ____m_w_view[__i];
            let __v5 = __v4 * x;
            let __v6 = __v5.tanh();
            __tape_v6.push(__v6);
            let __v7 = __i % 2;
            let __v8 = __m_a[__v7];
            let __v9 = __v6 * __v8;
            let s_2 = s_1 + __v9;
            s_1 = s_2;
        }
        let __v10 = s_1 * s_1;
        let mut __tape_v6 = __tape_v6.reader();
        let __d_s_1 = d_ret * (s_1 + s_1);
        let mut __d_s_1_1 = __d_s_1;
        let mut __d_x = 0.0;
        let ____m_w_view: &[_] = &__m_w[..__m_n];
        let __d_m_w_view: &mut [_] = &mut __d_m_w[..__m_n];
        for __i in (0..__m_n).rev() {
            let __v6 = __tape_v6.pop();
            let __v4 = ____m_w_view[__i];
            let __v7 = __i % 2;
            let __v8 = __m_a[__v7];
            let __d_v6 = __d_s_1_1 * __v8;
            let __d_v8 = __d_s_1_1 * __v6;
            ::autodiff::__private::add_to(&mut __d_m_a[__v7], __d_v8);
            let __d_v5 = __d_v6 * ::autodiff::__private::rules::tanh(__v6);
            let __d_v4 = __d_v5 * x;
            let __d_x_1 = __d_x + __d_v5 * __v4;
            ::autodiff::__private::add_to(&mut __d_m_w_view[__i], __d_v4);
            __d_x = __d_x_1;
        }
        let __d_v1 = __d_s_1_1 * __v2;
        let __d_v2 = __d_s_1_1 * __v1;
        ::autodiff::__private::add_to(&mut __d_m_a[1], __d_v2);
        ::autodiff::__private::add_to(&mut __d_m_a[0], __d_v1);
        let __d_m_b = __d_s_1_1 * x;
        let __d_x_2 = __d_x + __d_s_1_1 * __m_b;
        (__v10, (__d_m_b, __d_m_a, (), __d_m_w, __d_x_2))
    };
    let (__gradient_1, __gradient_2, __gradient_3, __gradient_4, __gradient_5) = __gradient;
    (
        __value,
        (
            {
                let mut __struct_gradient = <Model as ::autodiff::__private::Differentiable>::zero_like(
                    m,
                );
                <Model>::__autodiff_add_to_b(&mut __struct_gradient, __gradient_1);
                <Model>::__autodiff_add_to_a(&mut __struct_gradient, __gradient_2);
                <Model>::__autodiff_add_to_n(&mut __struct_gradient, __gradient_3);
                <Model>::__autodiff_add_to_w(&mut __struct_gradient, __gradient_4);
                __struct_gradient
            },
            __gradient_5,
        ),
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn model_loss_jvp(m: &Model, x: f64, tangent: (Model, f64)) -> (f64, f64) {
    let __m_b = m.b;
    let __m_a = &m.a;
    let __m_n = m.n;
    let __m_w = &m.w;
    let (__tangent_0, __tangent_1) = tangent;
    let __tangent___m_b = <Model>::__autodiff_tangent_of_b(
        &__tangent_0.b,
        || ::autodiff::__private::constant_zero(&__m_b),
    );
    let __tangent___m_a = <Model>::__autodiff_tangent_of_a(
        &__tangent_0.a,
        || ::autodiff::__private::zeros_like(__m_a),
    );
    let __tangent___m_n = <Model>::__autodiff_tangent_of_n(
        &__tangent_0.n,
        || ::autodiff::__private::constant_zero(&__m_n),
    );
    let __tangent___m_w = <Model>::__autodiff_tangent_of_w(
        &__tangent_0.w,
        || ::autodiff::__private::zeros_like(__m_w),
    );
    let __inner_tangent = (
        __tangent___m_b,
        __tangent___m_a,
        __tangent___m_n,
        __tangent___m_w,
        __tangent_1,
    );
    let (__dot_m_b, __dot_m_a, _, __dot_m_w, __dot_x) = __inner_tangent;
    let mut __dot_m_a = ::autodiff::__private::tangent("__m_a", __dot_m_a, &__m_a);
    let mut __dot_m_w = ::autodiff::__private::tangent("__m_w", __dot_m_w, &__m_w);
    let __v0 = __m_b * x;
    let __dot_v0 = __dot_m_b * x + __dot_x * __m_b;
    let __v1 = __m_a[0];
    let __dot_v1 = __dot_m_a[0];
    let __v2 = __m_a[1];
    let __dot_v2 = __dot_m_a[1];
    let __v3 = __v1 * __v2;
    let __dot_v3 = __dot_v1 * __v2 + __dot_v2 * __v1;
    let s = __v0 + __v3;
    let __dot_s = __dot_v0 + __dot_v3;
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    let ____m_w_view: &[_] = &__m_w[..__m_n];
    let __dot_m_w_view: &[_] = &__dot_m_w[..__m_n];
    for __i in 0..__m_n {
        let __v4 = ____m_w_view[__i];
        let __dot_v4 = __dot_m_w_view[__i];
        let __v5 = __v4 * x;
        let __dot_v5 = __dot_v4 * x + __dot_x * __v4;
        let __v6 = __v5.tanh();
        let __dot_v6 = __dot_v5 * ::autodiff::__private::rules::tanh(__v6);
        let __v7 = __i % 2;
        let __v8 = __m_a[__v7];
        let __dot_v8 = __dot_m_a[__v7];
        let __v9 = __v6 * __v8;
        let __dot_v9 = __dot_v6 * __v8 + __dot_v8 * __v6;
        let s_2 = s_1 + __v9;
        let __dot_s_2 = __dot_s_1 + __dot_v9;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    let __v10 = s_1 * s_1;
    let __dot_v10 = __dot_s_1 * (s_1 + s_1);
    (__v10, __dot_v10)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct model_loss {}
impl ::autodiff::__private::GenericCopy for model_loss {
    type Copy = __model_loss_generic;
    #[inline(always)]
    fn copy() -> __model_loss_generic {
        __model_loss_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for model_loss {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl model_loss {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, m: &Model, x: f64, d_ret: f64) -> (f64, (Model, f64)) {
        model_loss_vjp(m, x, d_ret)
    }
    #[inline]
    fn jvp(self, m: &Model, x: f64, tangents: (Model, f64)) -> (f64, f64) {
        model_loss_jvp(m, x, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        m: &Model,
        x: f64,
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<Model>,
            impl ::autodiff::__private::PassOn<f64>,
        ),
    ) -> (f64, (Model, f64)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = model_loss_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    fn jvp_out(
        self,
        m: &Model,
        x: f64,
        tangents: (Model, f64),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        model_loss_jvp(m, x, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        m: &Model,
        x: f64,
        d_ret: f64,
        grads: ((), ::core::option::Option<&mut f64>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = model_loss_vjp(m, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        let _ = __slot_0;
        ::autodiff::__private::add_into_slot(__slot_1, __gradient_1);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_loss_generic<__S: ::autodiff::__private::Float>(m: &Model, x: __S) -> __S {
    let __m_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.b));
    let __m_a_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.a));
    let __m_a = &__m_a_lifted;
    let __m_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.n));
    let __m_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.w));
    let __m_w = &__m_w_lifted;
    {
        use ::autodiff::__private::Float as _;
        let mut s = __m_b * x + (*__m_a)[0] * (*__m_a)[1];
        for i in 0..__m_n {
            s = s + (((*__m_w)[i] * x).tanh() * (*__m_a)[i % 2]);
        }
        s * s
    }
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_loss_generic_vjp<__S: ::autodiff::__private::Float>(
    m: &Model,
    x: __S,
    d_ret: __S,
) -> (__S, __S) {
    let __m_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.b));
    let __m_a_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.a));
    let __m_a = &__m_a_lifted;
    let __m_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.n));
    let __m_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.w));
    let __m_w = &__m_w_lifted;
    let (__value, __gradient) = {
        use ::autodiff::__private::Float as _;
        let mut __tape_v6 = ::autodiff::__private::Tape::new();
        let __v0 = __m_b * x;
        let __v1 = __m_a[0];
        let __v2 = __m_a[1];
        let __v3 = __v1 * __v2;
        let s = __v0 + __v3;
        let mut s_1 = s;
        __tape_v6.reserve(::core::iter::Iterator::size_hint(&(0..__m_n)).0);
        let ____m_w_view: &[_] = &__m_w[..__m_n];
        for __i in 0..__m_n {
            let __v4 = ____m_w_view[__i];
            let __v5 = __v4 * x;
            let __v6 = __v5.tanh();
            __tape_v6.push(__v6);
            let __v7 = __i % 2;
            let __v8 = __m_a[__v7];
            let __v9 = __v6 * __v8;
            let s_2 = s_1 + __v9;
            s_1 = s_2;
        }
        let __v10 = s_1 * s_1;
        let mut __tape_v6 = __tape_v6.reader();
        let __d_s_1 = d_ret * (s_1 + s_1);
        let mut __d_s_1_1 = __d_s_1;
        let mut __d_x = <__S as ::autodiff::__private::Zero>::zero();
        let ____m_w_view: &[_] = &__m_w[..__m_n];
        for __i in (0..__m_n).rev() {
            let __v6 = __tape_v6.pop();
            let __v4 = ____m_w_view[__i];
            let __v7 = __i % 2;
            let __v8 = __m_a[__v7];
            let __d_v6 = __d_s_1_1 * __v8;
            let __d_v5 = __d_v6 * ::autodiff::__private::rules::tanh(__v6);
            let __d_x_1 = __d_x + __d_v5 * __v4;
            __d_x = __d_x_1;
        }
        let __d_x_2 = __d_x + __d_s_1_1 * __m_b;
        (__v10, __d_x_2)
    };
    let __gradient_5 = __gradient;
    (__value, __gradient_5)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_loss_generic_jvp<__S: ::autodiff::__private::Float>(
    m: &Model,
    x: __S,
    tangent: __S,
) -> (__S, __S) {
    let __m_b = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.b));
    let __m_a_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.a));
    let __m_a = &__m_a_lifted;
    let __m_n = ::autodiff::__private::lift::<__S, _>(::core::clone::Clone::clone(&m.n));
    let __m_w_lifted = ::autodiff::__private::lift::<
        __S,
        _,
    >(::core::clone::Clone::clone(&m.w));
    let __m_w = &__m_w_lifted;
    let __tangent_1 = tangent;
    let __inner_tangent = __tangent_1;
    use ::autodiff::__private::Float as _;
    let __dot_x = __inner_tangent;
    let __v0 = __m_b * x;
    let __dot_v0 = __dot_x * __m_b;
    let __v1 = __m_a[0];
    let __v2 = __m_a[1];
    let __v3 = __v1 * __v2;
    let s = __v0 + __v3;
    let __dot_s = __dot_v0;
    let mut s_1 = s;
    let mut __dot_s_1 = __dot_s;
    let ____m_w_view: &[_] = &__m_w[..__m_n];
    for __i in 0..__m_n {
        let __v4 = ____m_w_view[__i];
        let __v5 = __v4 * x;
        let __dot_v5 = __dot_x * __v4;
        let __v6 = __v5.tanh();
        let __dot_v6 = __dot_v5 * ::autodiff::__private::rules::tanh(__v6);
        let __v7 = __i % 2;
        let __v8 = __m_a[__v7];
        let __v9 = __v6 * __v8;
        let __dot_v9 = __dot_v6 * __v8;
        let s_2 = s_1 + __v9;
        let __dot_s_2 = __dot_s_1 + __dot_v9;
        (s_1, __dot_s_1) = (s_2, __dot_s_2);
    }
    let __v10 = s_1 * s_1;
    let __dot_v10 = __dot_s_1 * (s_1 + s_1);
    (__v10, __dot_v10)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __model_loss_generic {}
impl ::autodiff::__private::GenericCopy for __model_loss_generic {
    type Copy = __model_loss_generic;
    #[inline(always)]
    fn copy() -> __model_loss_generic {
        __model_loss_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __model_loss_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __model_loss_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(m: &Model, x: __S) -> __S {
        __model_loss_generic(m, x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, m: &Model, x: __S) -> __S {
        __model_loss_generic(m, x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        m: &Model,
        x: __S,
        d_ret: __S,
    ) -> (__S, ((), __S)) {
        let (value, gradient) = __model_loss_generic_vjp(m, x, d_ret);
        let __gradient_0 = gradient;
        (value, ((), __gradient_0))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        m: &Model,
        x: __S,
        tangents: ((), __S),
    ) -> (__S, __S) {
        let (_, __tangent_1) = tangents;
        __model_loss_generic_jvp(m, x, __tangent_1)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        m: &Model,
        x: __S,
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<__S>,
        ),
    ) -> (__S, ((), __S)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __model_loss_generic_vjp(m, x, d_ret);
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
        m: &Model,
        x: __S,
        tangents: ((), __S),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (_, __tangent_1) = tangents;
        __model_loss_generic_jvp(m, x, __tangent_1)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        m: &Model,
        x: __S,
        d_ret: __S,
        grads: ((), ::core::option::Option<&mut __S>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = __model_loss_generic_vjp(m, x, d_ret);
        let __gradient_1 = gradient;
        ::autodiff::__private::add_into_slot(__slot_1, __gradient_1);
        value
    }
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        true
    }
}
#[::autodiff::differentiable(wrt(__m_values, x), __struct_whole)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __model_loss_whole(
    __m_primal: &<Model as ::autodiff::__private::Itself>::Type,
    __m_values: &[f64],
    x: f64,
) -> f64 {
    let __m_b = __m_values[::autodiff::__private::field_start::<
        Model,
        12638190499090526629u64,
    >(__m_primal)];
    let __m_a_start = ::autodiff::__private::field_start::<
        Model,
        12638187200555641996u64,
    >(__m_primal);
    let __m_a_end = ::autodiff::__private::field_end::<
        Model,
        12638187200555641996u64,
    >(__m_primal);
    let __m_a = ::autodiff::__private::field_window::<
        Model,
        12638187200555641996u64,
        _,
    >(&__m_values[__m_a_start..__m_a_end]);
    let __m_n = ::autodiff::__private::field_value::<
        Model,
        12638194897137039473u64,
    >(__m_primal);
    let __m_w_start = ::autodiff::__private::field_start::<
        Model,
        12638202593718436950u64,
    >(__m_primal);
    let __m_w_end = ::autodiff::__private::field_end::<
        Model,
        12638202593718436950u64,
    >(__m_primal);
    let __m_w = ::autodiff::__private::field_window::<
        Model,
        12638202593718436950u64,
        _,
    >(&__m_values[__m_w_start..__m_w_end]);
    let mut s = __m_b * x + __m_a[0] * __m_a[1];
    for i in 0..__m_n {
        s += (__m_w[i] * x).tanh() * __m_a[i % 2];
    }
    s * s
}
#[::autodiff::differentiable(wrt(__m_values, __pair_value_1), __struct_whole)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
#[inline(always)]
fn __model_loss_pairs(
    __m_primal: &<Model as ::autodiff::__private::Itself>::Type,
    __m_values: &[f64],
    __pair_unit_1: (),
    __pair_value_1: f64,
) -> f64 {
    __model_loss_whole(__m_primal, __m_values, __pair_value_1)
}
