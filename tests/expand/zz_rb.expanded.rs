use autodiff::differentiable;
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += t * 100.0 * t + u * u;
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rosenbrock_grad(x: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __rosenbrock_vjp_into(x, 1.0, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rosenbrock_grad_into(x: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    ::autodiff::__private::clear(&mut __grad_x[..]);
    __rosenbrock_vjp_into(x, 1.0, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __rosenbrock_vjp_into(x: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    let __grad_x = grad;
    let mut __d_x = ::autodiff::__private::gradient_buffer("x", __grad_x, &x);
    let __v0 = x.len();
    let __v1 = __v0 - 1;
    let mut __d_s = d_ret;
    let mut __window_x_0 = 0.0;
    let mut __window_x_1 = 0.0;
    let mut s = 0.0;
    let __x_view: &[_] = &x[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
    let __x_view_1: &[_] = &x[..__v1];
    for __i in 0..__v1 {
        let __v2 = __i + 1;
        let __v3 = __x_view[__i];
        let __v4 = __x_view_1[__i];
        let __v5 = __v4 * __v4;
        let t = __v3 - __v5;
        let u = 1.0 - __v4;
        let __v6 = t * 100.0;
        let __v7 = __v6 * t;
        let __v8 = u * u;
        let __v9 = __v7 + __v8;
        let s_1 = s + __v9;
        let __d_u = __d_s * (u + u);
        let __d_v6 = __d_s * t;
        let __d_t = __d_s * __v6;
        let __d_t_1 = __d_t + __d_v6 * 100.0;
        let __d_v4 = -__d_u;
        let __d_v5 = -__d_t_1;
        let __d_v4_1 = __d_v4 + __d_v5 * (__v4 + __v4);
        ::autodiff::__private::add_to(&mut __window_x_0, __d_v4_1);
        ::autodiff::__private::add_to(&mut __window_x_1, __d_t_1);
        ::autodiff::__private::add_to(&mut __d_x[__i], __window_x_0);
        (__window_x_0, __window_x_1) = (__window_x_1, 0.0);
        s = s_1;
    }
    if 0 < __v1 {
        ::autodiff::__private::add_to(&mut __d_x[__v1], __window_x_0);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rosenbrock_vjp(x: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_x = ::autodiff::__private::zeros_like(&x[..]);
    let value = __rosenbrock_vjp_into(x, d_ret, &mut __grad_x);
    (value, __grad_x)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn rosenbrock_jvp(x: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    let mut __dot_x = ::autodiff::__private::tangent("x", tangent, &x);
    let __v0 = x.len();
    let __v1 = __v0 - 1;
    let mut s = 0.0;
    let mut __dot_s = 0.0;
    let __x_view: &[_] = &x[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
    let __x_view_1: &[_] = &x[..__v1];
    let __dot_x_view: &[_] = &__dot_x[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
    let __dot_x_view_1: &[_] = &__dot_x[..__v1];
    for __i in 0..__v1 {
        let __v2 = __i + 1;
        let __v3 = __x_view[__i];
        let __dot_v3 = __dot_x_view[__i];
        let __v4 = __x_view_1[__i];
        let __dot_v4 = __dot_x_view_1[__i];
        let __v5 = __v4 * __v4;
        let __dot_v5 = __dot_v4 * (__v4 + __v4);
        let t = __v3 - __v5;
        let __dot_t = __dot_v3 - __dot_v5;
        let u = 1.0 - __v4;
        let __dot_u = -__dot_v4;
        let __v6 = t * 100.0;
        let __dot_v6 = __dot_t * 100.0;
        let __v7 = __v6 * t;
        let __dot_v7 = __dot_v6 * t + __dot_t * __v6;
        let __v8 = u * u;
        let __dot_v8 = __dot_u * (u + u);
        let __v9 = __v7 + __v8;
        let __dot_v9 = __dot_v7 + __dot_v8;
        let s_1 = s + __v9;
        let __dot_s_1 = __dot_s + __dot_v9;
        (s, __dot_s) = (s_1, __dot_s_1);
    }
    (s, __dot_s)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct rosenbrock {}
impl ::autodiff::__private::GenericCopy for rosenbrock {
    type Copy = __rosenbrock_generic;
    #[inline(always)]
    fn copy() -> __rosenbrock_generic {
        __rosenbrock_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for rosenbrock {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl rosenbrock {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp(self, x: &[f64], d_ret: f64) -> (f64, (::std::vec::Vec<f64>,)) {
        let (value, gradient) = rosenbrock_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    pub fn jvp(self, x: &[f64], tangents: (::std::vec::Vec<f64>,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        rosenbrock_jvp(x, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out(
        self,
        x: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,),
    ) -> (f64, (::std::vec::Vec<f64>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = rosenbrock_vjp(x, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out(
        self,
        x: &[f64],
        tangents: (::std::vec::Vec<f64>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (f64, f64) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        rosenbrock_jvp(x, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into(
        self,
        x: &[f64],
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>,),
    ) -> f64 {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            x.len(),
        );
        let value = __rosenbrock_vjp_into(x, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    pub fn cotangent_linear(&self) -> bool {
        true
    }
}
#[::autodiff::differentiable(order = 2)]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __rosenbrock_generic<__S: ::autodiff::__private::Float>(x: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut s = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = ::autodiff::__private::lit::<__S>(1.0 as f64) - x[i];
        s = s + (t * ::autodiff::__private::lit::<__S>(100.0 as f64) * t + u * u);
    }
    s
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
pub fn rosenbrock_hvp(
    x: &[f64],
    v: ::std::vec::Vec<f64>,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>) {
    __rosenbrock_generic_hvp(x, v)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
pub fn rosenbrock_hessian(
    x: &[f64],
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    __rosenbrock_generic_hessian(x)
}
