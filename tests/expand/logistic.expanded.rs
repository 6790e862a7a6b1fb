use autodiff::differentiable;
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn sigmoid_grad(z: f64) -> (f64, f64) {
    let mut __grad_z = 0.0;
    let value = __sigmoid_vjp_into(z, 1.0, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn sigmoid_grad_into(z: f64, grad: &mut f64) -> f64 {
    let __grad_z = grad;
    __sigmoid_vjp_into(z, 1.0, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline(always)]
fn __sigmoid_vjp_into(z: f64, d_ret: f64, grad: &mut f64) -> f64 {
    ____sigmoid_generic_vjp_into(z, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn sigmoid_vjp(z: f64, d_ret: f64) -> (f64, f64) {
    let mut __grad_z = 0.0;
    let value = __sigmoid_vjp_into(z, d_ret, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn sigmoid_jvp(z: f64, tangent: f64) -> (f64, f64) {
    __sigmoid_generic_jvp(z, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct sigmoid {}
impl ::autodiff::__private::GenericCopy for sigmoid {
    type Copy = __sigmoid_generic;
    #[inline(always)]
    fn copy() -> __sigmoid_generic {
        __sigmoid_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for sigmoid {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl sigmoid {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(self, z: f64, d_ret: f64) -> (f64, (f64,)) {
        let (value, gradient) = sigmoid_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp(self, z: f64, tangents: (f64,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        sigmoid_jvp(z, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        z: f64,
        d_ret: f64,
        grads: (::core::option::Option<&mut f64>,),
    ) -> f64 {
        let (__slot_0,) = grads;
        let mut __buffer_0 = 0.0;
        let value = __sigmoid_vjp_into(z, d_ret, &mut __buffer_0);
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
struct sigmoid_grad {}
impl ::autodiff::__private::GenericCopy for sigmoid_grad {
    type Copy = sigmoid_grad;
    #[inline(always)]
    fn copy() -> sigmoid_grad {
        sigmoid_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl sigmoid_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(z: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <sigmoid as ::autodiff::__private::GenericCopy>::copy()
            .vjp(z, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, z: __S) -> (__S, __S) {
        Self::call(z)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct sigmoid_vjp {}
impl ::autodiff::__private::GenericCopy for sigmoid_vjp {
    type Copy = sigmoid_vjp;
    #[inline(always)]
    fn copy() -> sigmoid_vjp {
        sigmoid_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl sigmoid_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(z: __S, d_ret: __S) -> (__S, __S) {
        let (__value, (__slot_0,)) = <sigmoid as ::autodiff::__private::GenericCopy>::copy()
            .vjp(z, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        z: __S,
        d_ret: __S,
    ) -> (__S, __S) {
        Self::call(z, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct sigmoid_jvp {}
impl ::autodiff::__private::GenericCopy for sigmoid_jvp {
    type Copy = sigmoid_jvp;
    #[inline(always)]
    fn copy() -> sigmoid_jvp {
        sigmoid_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl sigmoid_jvp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(z: __S, tangent: __S) -> (__S, __S) {
        let __tangent_0 = tangent;
        <sigmoid as ::autodiff::__private::GenericCopy>::copy().jvp(z, (__tangent_0,))
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        z: __S,
        tangent: __S,
    ) -> (__S, __S) {
        Self::call(z, tangent)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __sigmoid_generic<__S: ::autodiff::__private::Float>(z: __S) -> __S {
    use ::autodiff::__private::Float as _;
    ::autodiff::__private::lit::<__S>(1.0 as f64)
        / (::autodiff::__private::lit::<__S>(1.0 as f64) + (-z).exp())
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn ____sigmoid_generic_vjp_into<__S: ::autodiff::__private::Float>(
    z: __S,
    d_ret: __S,
    grad: &mut __S,
) -> __S {
    let __grad_z = grad;
    use ::autodiff::__private::Float as _;
    let __v0 = 1.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = ::autodiff::__private::lit::<__S>(__v0);
    let __v3 = -z;
    let __v4 = __v3.exp();
    let __v5 = __v2 + __v4;
    let __v6 = __v1 / __v5;
    let __d_v5 = d_ret * (-__v6) / __v5;
    let __d_v3 = __d_v5 * __v4;
    let __d_z = -__d_v3;
    *__grad_z = __d_z;
    __v6
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __sigmoid_generic_vjp<__S: ::autodiff::__private::Float>(
    z: __S,
    d_ret: __S,
) -> (__S, __S) {
    let mut __grad_z = <__S as ::autodiff::__private::Zero>::zero();
    let value = ____sigmoid_generic_vjp_into(z, d_ret, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __sigmoid_generic_jvp<__S: ::autodiff::__private::Float>(
    z: __S,
    tangent: __S,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let __dot_z = tangent;
    let __v0 = 1.0 as f64;
    let __v1 = ::autodiff::__private::lit::<__S>(__v0);
    let __v2 = ::autodiff::__private::lit::<__S>(__v0);
    let __v3 = -z;
    let __dot_v3 = -__dot_z;
    let __v4 = __v3.exp();
    let __dot_v4 = ::autodiff::__private::rules::times(__dot_v3, __v4);
    let __v5 = __v2 + __v4;
    let __dot_v5 = __dot_v4;
    let __v6 = __v1 / __v5;
    let __dot_v6 = ::autodiff::__private::rules::times(__dot_v5, (-__v6)) / __v5;
    (__v6, __dot_v6)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __sigmoid_generic {}
impl ::autodiff::__private::GenericCopy for __sigmoid_generic {
    type Copy = __sigmoid_generic;
    #[inline(always)]
    fn copy() -> __sigmoid_generic {
        __sigmoid_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __sigmoid_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __sigmoid_generic {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(z: __S) -> __S {
        __sigmoid_generic(z)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, z: __S) -> __S {
        __sigmoid_generic(z)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        z: __S,
        d_ret: __S,
    ) -> (__S, (__S,)) {
        let (value, gradient) = __sigmoid_generic_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        z: __S,
        tangents: (__S,),
    ) -> (__S, __S) {
        let (__tangent_0,) = tangents;
        __sigmoid_generic_jvp(z, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        z: __S,
        d_ret: __S,
        grads: (::core::option::Option<&mut __S>,),
    ) -> __S {
        let (__slot_0,) = grads;
        let mut __buffer_0 = <__S as ::autodiff::__private::Zero>::zero();
        let value = ____sigmoid_generic_vjp_into(z, d_ret, &mut __buffer_0);
        ::autodiff::__private::add_into_slot(__slot_0, __buffer_0);
        value
    }
}
fn predict(w: &[f64], x: &[f64]) -> f64 {
    let mut z = 0.0;
    for j in 0..w.len() {
        z += w[j] * x[j];
    }
    sigmoid(z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn predict_grad(w: &[f64], x: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __predict_vjp_into(w, x, 1.0, &mut __grad_w);
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn predict_grad_into(w: &[f64], x: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_w = grad;
    ::autodiff::__private::clear(&mut __grad_w[..]);
    __predict_vjp_into(w, x, 1.0, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __predict_vjp_into(w: &[f64], x: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    let __grad_w = grad;
    let mut __d_w = ::autodiff::__private::gradient_buffer("w", __grad_w, &w);
    let __v0 = w.len();
    let mut z = 0.0;
    let __x_view: &[_] = &x[..__v0];
    for __i in 0..__v0 {
        let __v1 = w[__i];
        let __v2 = __x_view[__i];
        let __v3 = __v1 * __v2;
        let z_1 = z + __v3;
        z = z_1;
    }
    let __v4 = sigmoid(z);
    let mut __d_z = -0.0;
    let _ = ::autodiff::__private::derivative_of!(
        sigmoid, vjp_into(_, _, _); through 0usize
    )
        .vjp_into(z, d_ret, (::core::option::Option::Some(&mut __d_z),));
    let mut __d_z_1 = __d_z;
    let __x_view: &[_] = &x[..__v0];
    for __i in 0..__v0 {
        let __v2 = __x_view[__i];
        let __d_v1 = __d_z_1 * __v2;
        ::autodiff::__private::add_to(&mut __d_w[__i], __d_v1);
    }
    __v4
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn predict_vjp(w: &[f64], x: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __predict_vjp_into(w, x, d_ret, &mut __grad_w);
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn predict_jvp(w: &[f64], x: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    let mut __dot_w = ::autodiff::__private::tangent("w", tangent, &w);
    let __v0 = w.len();
    let mut z = 0.0;
    let mut __dot_z = 0.0;
    let __x_view: &[_] = &x[..__v0];
    for __i in 0..__v0 {
        let __v1 = w[__i];
        let __dot_v1 = __dot_w[__i];
        let __v2 = __x_view[__i];
        let __v3 = __v1 * __v2;
        let __dot_v3 = __dot_v1 * __v2;
        let z_1 = z + __v3;
        let __dot_z_1 = __dot_z + __dot_v3;
        (z, __dot_z) = (z_1, __dot_z_1);
    }
    let (__v4, __dot_v4) = ::autodiff::__private::derivative_of!(
        sigmoid, jvp(_, _); through 0usize
    )
        .jvp(z, (__dot_z,));
    (__v4, __dot_v4)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct predict {}
impl ::autodiff::__private::GenericCopy for predict {
    type Copy = __predict_generic;
    #[inline(always)]
    fn copy() -> __predict_generic {
        __predict_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for predict {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl predict {
    #[doc(hidden)]
    pub const __AUTODIFF_THROUGH: &'static [bool] = &[
        true,
        ::autodiff::__private::through_of!(sigmoid; 0usize),
    ];
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all(
        w: &[f64],
        x: &[f64],
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let mut __d_w = ::autodiff::__private::zeros_like(&w);
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let __v0 = w.len();
        let mut z = 0.0;
        let __x_view: &[_] = &x[..__v0];
        for __i in 0..__v0 {
            let __v1 = w[__i];
            let __v2 = __x_view[__i];
            let __v3 = __v1 * __v2;
            let z_1 = z + __v3;
            z = z_1;
        }
        let __v4 = sigmoid(z);
        let mut __d_z = -0.0;
        let _ = ::autodiff::__private::derivative_of!(sigmoid, vjp_into(_, _, _))
            .vjp_into(z, d_ret, (::core::option::Option::Some(&mut __d_z),));
        let mut __d_z_1 = __d_z;
        let __x_view: &[_] = &x[..__v0];
        let __d_x_view: &mut [_] = &mut __d_x[..__v0];
        for __i in 0..__v0 {
            let __v1 = w[__i];
            let __v2 = __x_view[__i];
            let __d_v1 = __d_z_1 * __v2;
            let __d_v2 = __d_z_1 * __v1;
            ::autodiff::__private::add_to(&mut __d_x_view[__i], __d_v2);
            ::autodiff::__private::add_to(&mut __d_w[__i], __d_v1);
        }
        (__v4, (__d_w, __d_x))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all(
        w: &[f64],
        x: &[f64],
        tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        let (__dot_w, __dot_x) = tangent;
        let mut __dot_w = ::autodiff::__private::tangent("w", __dot_w, &w);
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let __v0 = w.len();
        let mut z = 0.0;
        let mut __dot_z = 0.0;
        let __x_view: &[_] = &x[..__v0];
        let __dot_x_view: &[_] = &__dot_x[..__v0];
        for __i in 0..__v0 {
            let __v1 = w[__i];
            let __dot_v1 = __dot_w[__i];
            let __v2 = __x_view[__i];
            let __dot_v2 = __dot_x_view[__i];
            let __v3 = __v1 * __v2;
            let __dot_v3 = __dot_v1 * __v2 + __dot_v2 * __v1;
            let z_1 = z + __v3;
            let __dot_z_1 = __dot_z + __dot_v3;
            (z, __dot_z) = (z_1, __dot_z_1);
        }
        let (__v4, __dot_v4) = ::autodiff::__private::derivative_of!(sigmoid, jvp(_, _))
            .jvp(z, (__dot_z,));
        (__v4, __dot_v4)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        w: &[f64],
        x: &[f64],
        d_ret: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        Self::__vjp_all(w, x, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        w: &[f64],
        x: &[f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
    ) -> (f64, f64) {
        Self::__jvp_all(w, x, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        w: &[f64],
        x: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
        ),
    ) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = Self::__vjp_all(w, x, d_ret);
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
        w: &[f64],
        x: &[f64],
        tangents: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (f64, f64) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        Self::__jvp_all(w, x, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        w: &[f64],
        x: &[f64],
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>, ::core::option::Option<&mut [f64]>),
    ) -> f64 {
        let (__slot_0, __slot_1) = grads;
        let value = if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                w.len(),
            );
            let value = __predict_vjp_into(w, x, d_ret, __buffer_0);
            value
        } else {
            let (value, gradient) = Self::__vjp_all(w, x, d_ret);
            let (__gradient_0, __gradient_1) = gradient;
            ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
            value
        };
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct predict_grad {}
impl ::autodiff::__private::GenericCopy for predict_grad {
    type Copy = predict_grad;
    #[inline(always)]
    fn copy() -> predict_grad {
        predict_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl predict_grad {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        w: &[__S],
        x: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _)) = <predict as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, x, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(w, x)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct predict_vjp {}
impl ::autodiff::__private::GenericCopy for predict_vjp {
    type Copy = predict_vjp;
    #[inline(always)]
    fn copy() -> predict_vjp {
        predict_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl predict_vjp {
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        w: &[__S],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _)) = <predict as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, x, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(w, x, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __predict_generic<__S: ::autodiff::__private::Float>(w: &[__S], x: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut z = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for j in 0..w.len() {
        z = z + (w[j] * x[j]);
    }
    <sigmoid as ::autodiff::__private::GenericCopy>::Copy::call(z)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct __predict_generic {}
impl ::autodiff::__private::GenericCopy for __predict_generic {
    type Copy = __predict_generic;
    #[inline(always)]
    fn copy() -> __predict_generic {
        __predict_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __predict_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __predict_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        w: &[__S],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        use ::autodiff::__private::Float as _;
        let mut __d_w = ::autodiff::__private::zeros_like(&w);
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let __v0 = 0.0 as f64;
        let z = ::autodiff::__private::lit::<__S>(__v0);
        let __v1 = w.len();
        let mut z_1 = z;
        let __x_view: &[_] = &x[..__v1];
        for __i in 0..__v1 {
            let __v2 = w[__i];
            let __v3 = __x_view[__i];
            let __v4 = __v2 * __v3;
            let z_2 = z_1 + __v4;
            z_1 = z_2;
        }
        let __v5 = <sigmoid as ::autodiff::__private::GenericCopy>::Copy::call(z_1);
        let mut __d_z_1 = <__S as ::autodiff::__private::Zero>::zero();
        let _ = <sigmoid as ::autodiff::__private::GenericCopy>::copy()
            .vjp_into(z_1, d_ret, (::core::option::Option::Some(&mut __d_z_1),));
        let mut __d_z_1_1 = __d_z_1;
        let __x_view: &[_] = &x[..__v1];
        let __d_x_view: &mut [_] = &mut __d_x[..__v1];
        for __i in 0..__v1 {
            let __v2 = w[__i];
            let __v3 = __x_view[__i];
            let __d_v2 = __d_z_1_1 * __v3;
            let __d_v3 = __d_z_1_1 * __v2;
            ::autodiff::__private::add_to(&mut __d_x_view[__i], __d_v3);
            ::autodiff::__private::add_to(&mut __d_w[__i], __d_v2);
        }
        (__v5, (__d_w, __d_x))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        w: &[__S],
        x: &[__S],
        tangent: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        use ::autodiff::__private::Float as _;
        let (__dot_w, __dot_x) = tangent;
        let mut __dot_w = ::autodiff::__private::tangent("w", __dot_w, &w);
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let __v0 = 0.0 as f64;
        let z = ::autodiff::__private::lit::<__S>(__v0);
        let __v1 = w.len();
        let mut z_1 = z;
        let mut __dot_z_1 = <__S as ::autodiff::__private::Zero>::zero();
        let __x_view: &[_] = &x[..__v1];
        let __dot_x_view: &[_] = &__dot_x[..__v1];
        for __i in 0..__v1 {
            let __v2 = w[__i];
            let __dot_v2 = __dot_w[__i];
            let __v3 = __x_view[__i];
            let __dot_v3 = __dot_x_view[__i];
            let __v4 = __v2 * __v3;
            let __dot_v4 = __dot_v2 * __v3 + __dot_v3 * __v2;
            let z_2 = z_1 + __v4;
            let __dot_z_2 = __dot_z_1 + __dot_v4;
            (z_1, __dot_z_1) = (z_2, __dot_z_2);
        }
        let (__v5, __dot_v5) = <sigmoid as ::autodiff::__private::GenericCopy>::copy()
            .jvp(z_1, (__dot_z_1,));
        (__v5, __dot_v5)
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(w: &[__S], x: &[__S]) -> __S {
        __predict_generic(w, x)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(self, w: &[__S], x: &[__S]) -> __S {
        __predict_generic(w, x)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::__vjp_all(w, x, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
    ) -> (__S, __S) {
        Self::__jvp_all(w, x, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
        ),
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__after_0, __after_1) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(w, x, d_ret);
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
        w: &[__S],
        x: &[__S],
        tangents: (::std::vec::Vec<__S>, ::std::vec::Vec<__S>),
        d_after: (impl ::core::marker::Sized, impl ::core::marker::Sized),
    ) -> (__S, __S) {
        let (__after_0, __after_1) = d_after;
        let (__tangent_0, __tangent_1) = tangents;
        Self::__jvp_all(w, x, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        x: &[__S],
        d_ret: __S,
        grads: (::core::option::Option<&mut [__S]>, ::core::option::Option<&mut [__S]>),
    ) -> __S {
        let (__slot_0, __slot_1) = grads;
        let (value, gradient) = Self::__vjp_all(w, x, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        value
    }
}
fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_grad(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __logistic_vjp_into(w, xs, ys, 1.0, &mut __grad_w);
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_grad_into(w: &[f64], xs: &[Vec<f64>], ys: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_w = grad;
    ::autodiff::__private::clear(&mut __grad_w[..]);
    __logistic_vjp_into(w, xs, ys, 1.0, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn __logistic_vjp_into(
    w: &[f64],
    xs: &[Vec<f64>],
    ys: &[f64],
    d_ret: f64,
    grad: &mut [f64],
) -> f64 {
    let __grad_w = grad;
    let __matrix_xs = xs;
    let mut __d_w = ::autodiff::__private::gradient_buffer("w", __grad_w, &w);
    let __v0 = ys.len();
    let mut __d_loss = d_ret;
    let mut loss = 0.0;
    for __i in 0..__v0 {
        let xs_row: &[_] = &__matrix_xs[__i][..];
        let p = predict(w, &xs_row);
        let __v4 = ys[__i];
        let __v5 = p.ln();
        let __v6 = __v4 * __v5;
        let __v7 = 1.0 - __v4;
        let __v8 = 1.0 - p;
        let __v9 = __v8.ln();
        let __v10 = __v7 * __v9;
        let __v11 = __v6 + __v10;
        let loss_1 = loss - __v11;
        let __d_v11 = -__d_loss;
        let __d_v9 = __d_v11 * __v7;
        let __d_v8 = __d_v9 / __v8;
        let __d_p = -__d_v8;
        let __d_v5 = __d_v11 * __v4;
        let __d_p_1 = __d_p + __d_v5 / p;
        let _ = ::autodiff::__private::derivative_of!(
            predict, vjp_into(_, _, _, _); through 0usize
        )
            .vjp_into(
                w,
                &xs_row,
                __d_p_1,
                (
                    ::core::option::Option::Some(&mut __d_w[..]),
                    ::core::default::Default::default(),
                ),
            );
        loss = loss_1;
    }
    loss
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_vjp(
    w: &[f64],
    xs: &[Vec<f64>],
    ys: &[f64],
    d_ret: f64,
) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __logistic_vjp_into(w, xs, ys, d_ret, &mut __grad_w);
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
fn logistic_jvp(
    w: &[f64],
    xs: &[Vec<f64>],
    ys: &[f64],
    tangent: ::std::vec::Vec<f64>,
) -> (f64, f64) {
    let __matrix_xs = xs;
    let mut __dot_w = ::autodiff::__private::tangent("w", tangent, &w);
    let __v0 = ys.len();
    let mut loss = 0.0;
    let mut __dot_loss = 0.0;
    for __i in 0..__v0 {
        let __v2 = __i + 1;
        let xs_row: &[_] = &__matrix_xs[__i][..];
        let (p, __dot_p) = ::autodiff::__private::derivative_of!(
            predict, jvp(_, _, _); through 0usize
        )
            .jvp(
                w,
                &xs_row,
                (
                    ::core::convert::Into::into(::core::clone::Clone::clone(&__dot_w)),
                    ::core::convert::Into::into(
                        ::autodiff::__private::zeros_like(&xs_row),
                    ),
                ),
            );
        let __v4 = ys[__i];
        let __v5 = p.ln();
        let __dot_v5 = ::autodiff::__private::rules::over(__dot_p, p);
        let __v6 = __v4 * __v5;
        let __dot_v6 = __dot_v5 * __v4;
        let __v7 = 1.0 - __v4;
        let __v8 = 1.0 - p;
        let __dot_v8 = -__dot_p;
        let __v9 = __v8.ln();
        let __dot_v9 = ::autodiff::__private::rules::over(__dot_v8, __v8);
        let __v10 = __v7 * __v9;
        let __dot_v10 = __dot_v9 * __v7;
        let __v11 = __v6 + __v10;
        let __dot_v11 = __dot_v6 + __dot_v10;
        let loss_1 = loss - __v11;
        let __dot_loss_1 = __dot_loss - __dot_v11;
        (loss, __dot_loss) = (loss_1, __dot_loss_1);
    }
    (loss, __dot_loss)
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
    #[doc(hidden)]
    pub const __AUTODIFF_THROUGH: &'static [bool] = &[
        true,
        ::autodiff::__private::through_of!(predict; 1usize),
        true,
    ];
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all(
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        d_ret: f64,
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
    ) {
        let __matrix_xs = xs;
        let xs = ::autodiff::__private::flatten(&__matrix_xs);
        let mut __tape_p = ::autodiff::__private::Tape::new();
        let mut __tape_v5 = ::autodiff::__private::Tape::new();
        let mut __tape_v9 = ::autodiff::__private::Tape::new();
        let mut __d_w = ::autodiff::__private::zeros_like(&w);
        let mut __d_xs = ::autodiff::__private::zeros_like(&xs);
        let mut __d_ys = ::autodiff::__private::zeros_like(&ys);
        let mut xs_rows = ::autodiff::__private::row_offsets(&__matrix_xs);
        let __v0 = ys.len();
        let mut loss = 0.0;
        __tape_p.reserve(::core::iter::Iterator::size_hint(&(0..__v0)).0);
        __tape_v5.reserve(::core::iter::Iterator::size_hint(&(0..__v0)).0);
        __tape_v9.reserve(::core::iter::Iterator::size_hint(&(0..__v0)).0);
        let __xs_rows_view: &[_] = &xs_rows[..__v0];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v0 { 1 } else { 0 })..][..__v0];
        for __i in 0..__v0 {
            let __v1 = __xs_rows_view[__i];
            let __v3 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v1..__v3];
            let p = predict(w, &xs_row);
            __tape_p.push(p);
            let __v4 = ys[__i];
            let __v5 = p.ln();
            __tape_v5.push(__v5);
            let __v6 = __v4 * __v5;
            let __v7 = 1.0 - __v4;
            let __v8 = 1.0 - p;
            let __v9 = __v8.ln();
            __tape_v9.push(__v9);
            let __v10 = __v7 * __v9;
            let __v11 = __v6 + __v10;
            let loss_1 = loss - __v11;
            loss = loss_1;
        }
        let mut __tape_p = __tape_p.reader();
        let mut __tape_v5 = __tape_v5.reader();
        let mut __tape_v9 = __tape_v9.reader();
        let mut __d_loss = d_ret;
        let __xs_rows_view: &[_] = &xs_rows[..__v0];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v0 { 1 } else { 0 })..][..__v0];
        for __i in (0..__v0).rev() {
            let p = __tape_p.pop();
            let __v5 = __tape_v5.pop();
            let __v9 = __tape_v9.pop();
            let __v1 = __xs_rows_view[__i];
            let __v3 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v1..__v3];
            let __v4 = ys[__i];
            let __v7 = 1.0 - __v4;
            let __v8 = 1.0 - p;
            let __d_xs_row: &mut [_] = &mut __d_xs[__v1..__v3];
            let __d_v11 = -__d_loss;
            let __d_v7 = __d_v11 * __v9;
            let __d_v9 = __d_v11 * __v7;
            let __d_v8 = __d_v9 / __v8;
            let __d_p = -__d_v8;
            let __d_v4 = -__d_v7;
            let __d_v4_1 = __d_v4 + __d_v11 * __v5;
            let __d_v5 = __d_v11 * __v4;
            let __d_p_1 = __d_p + __d_v5 / p;
            ::autodiff::__private::add_to(&mut __d_ys[__i], __d_v4_1);
            let _ = ::autodiff::__private::derivative_of!(predict, vjp_into(_, _, _, _))
                .vjp_into(
                    w,
                    &xs_row,
                    __d_p_1,
                    (
                        ::core::option::Option::Some(&mut __d_w[..]),
                        ::core::option::Option::Some(&mut __d_xs_row[..]),
                    ),
                );
        }
        (
            loss,
            (__d_w, ::autodiff::__private::unflatten_like(&__matrix_xs, &__d_xs), __d_ys),
        )
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all(
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        tangent: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
    ) -> (f64, f64) {
        let __matrix_xs = xs;
        let xs = ::autodiff::__private::flatten(&__matrix_xs);
        let (__dot_w, __dot_xs, __dot_ys) = tangent;
        let mut __dot_w = ::autodiff::__private::tangent("w", __dot_w, &w);
        let mut __dot_xs = ::autodiff::__private::matrix_tangent("xs", &__dot_xs, &xs);
        let mut __dot_ys = ::autodiff::__private::tangent("ys", __dot_ys, &ys);
        let mut xs_rows = ::autodiff::__private::row_offsets(&__matrix_xs);
        let __v0 = ys.len();
        let mut loss = 0.0;
        let mut __dot_loss = 0.0;
        let __xs_rows_view: &[_] = &xs_rows[..__v0];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v0 { 1 } else { 0 })..][..__v0];
        for __i in 0..__v0 {
            let __v1 = __xs_rows_view[__i];
            let __v2 = __i + 1;
            let __v3 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v1..__v3];
            let __dot_xs_row: &[_] = &__dot_xs[__v1..__v3];
            let (p, __dot_p) = ::autodiff::__private::derivative_of!(
                predict, jvp(_, _, _)
            )
                .jvp(
                    w,
                    &xs_row,
                    (
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_w),
                        ),
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_xs_row),
                        ),
                    ),
                );
            let __v4 = ys[__i];
            let __dot_v4 = __dot_ys[__i];
            let __v5 = p.ln();
            let __dot_v5 = ::autodiff::__private::rules::over(__dot_p, p);
            let __v6 = __v4 * __v5;
            let __dot_v6 = __dot_v4 * __v5 + __dot_v5 * __v4;
            let __v7 = 1.0 - __v4;
            let __dot_v7 = -__dot_v4;
            let __v8 = 1.0 - p;
            let __dot_v8 = -__dot_p;
            let __v9 = __v8.ln();
            let __dot_v9 = ::autodiff::__private::rules::over(__dot_v8, __v8);
            let __v10 = __v7 * __v9;
            let __dot_v10 = __dot_v7 * __v9 + __dot_v9 * __v7;
            let __v11 = __v6 + __v10;
            let __dot_v11 = __dot_v6 + __dot_v10;
            let loss_1 = loss - __v11;
            let __dot_loss_1 = __dot_loss - __dot_v11;
            (loss, __dot_loss) = (loss_1, __dot_loss_1);
        }
        (loss, __dot_loss)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp(
        self,
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        d_ret: f64,
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
    ) {
        Self::__vjp_all(w, xs, ys, d_ret)
    }
    #[inline]
    fn jvp(
        self,
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        tangents: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
    ) -> (f64, f64) {
        Self::__jvp_all(w, xs, ys, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out(
        self,
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<::std::vec::Vec<f64>>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
        ),
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
    ) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = Self::__vjp_all(w, xs, ys, d_ret);
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
    fn jvp_out(
        self,
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        tangents: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<::std::vec::Vec<f64>>,
            ::std::vec::Vec<f64>,
        ),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (f64, f64) {
        let (__after_0, __after_1, __after_2) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        Self::__jvp_all(w, xs, ys, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into(
        self,
        w: &[f64],
        xs: &[Vec<f64>],
        ys: &[f64],
        d_ret: f64,
        grads: (
            ::core::option::Option<&mut [f64]>,
            (),
            ::core::option::Option<&mut [f64]>,
        ),
    ) -> f64 {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let value = if __slot_2.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                w.len(),
            );
            let value = __logistic_vjp_into(w, xs, ys, d_ret, __buffer_0);
            value
        } else {
            let (value, gradient) = Self::__vjp_all(w, xs, ys, d_ret);
            let (__gradient_0, __gradient_1, __gradient_2) = gradient;
            ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
            let _ = __slot_1;
            ::autodiff::__private::accumulate_into_slot(__slot_2, &__gradient_2[..]);
            value
        };
        value
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
    fn call<__S: ::autodiff::__private::Float>(
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _, _)) = <logistic as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, xs, ys, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(w, xs, ys)
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
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0, _, _)) = <logistic as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, xs, ys, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(w, xs, ys, d_ret)
    }
    #[inline(always)]
    fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
fn __logistic_generic<__S: ::autodiff::__private::Float>(
    w: &[__S],
    xs: &[Vec<__S>],
    ys: &[__S],
) -> __S {
    use ::autodiff::__private::Float as _;
    let mut loss = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for k in 0..ys.len() {
        let p = <predict as ::autodiff::__private::GenericCopy>::Copy::call(w, &xs[k]);
        loss = loss
            - (ys[k] * p.ln()
                + (::autodiff::__private::lit::<__S>(1.0 as f64) - ys[k])
                    * (::autodiff::__private::lit::<__S>(1.0 as f64) - p).ln());
    }
    loss
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
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: __S,
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
    ) {
        use ::autodiff::__private::Float as _;
        let __matrix_xs = xs;
        let xs = ::autodiff::__private::flatten(&__matrix_xs);
        let mut __tape_p = ::autodiff::__private::Tape::new();
        let mut __tape_v6 = ::autodiff::__private::Tape::new();
        let mut __tape_v13 = ::autodiff::__private::Tape::new();
        let mut __d_w = ::autodiff::__private::zeros_like(&w);
        let mut __d_xs = ::autodiff::__private::zeros_like(&xs);
        let mut __d_ys = ::autodiff::__private::zeros_like(&ys);
        let mut xs_rows = ::autodiff::__private::row_offsets(&__matrix_xs);
        let __v0 = 0.0 as f64;
        let loss = ::autodiff::__private::lit::<__S>(__v0);
        let __v1 = ys.len();
        let mut loss_1 = loss;
        __tape_p.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
        __tape_v6.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
        __tape_v13.reserve(::core::iter::Iterator::size_hint(&(0..__v1)).0);
        let __xs_rows_view: &[_] = &xs_rows[..__v1];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
        for __i in 0..__v1 {
            let __v2 = __xs_rows_view[__i];
            let __v4 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v2..__v4];
            let p = <predict as ::autodiff::__private::GenericCopy>::Copy::call(
                w,
                &xs_row,
            );
            __tape_p.push(p);
            let __v5 = ys[__i];
            let __v6 = p.ln();
            __tape_v6.push(__v6);
            let __v7 = __v5 * __v6;
            let __v8 = 1.0 as f64;
            let __v9 = ::autodiff::__private::lit::<__S>(__v8);
            let __v10 = __v9 - __v5;
            let __v11 = ::autodiff::__private::lit::<__S>(__v8);
            let __v12 = __v11 - p;
            let __v13 = __v12.ln();
            __tape_v13.push(__v13);
            let __v14 = __v10 * __v13;
            let __v15 = __v7 + __v14;
            let loss_2 = loss_1 - __v15;
            loss_1 = loss_2;
        }
        let mut __tape_p = __tape_p.reader();
        let mut __tape_v6 = __tape_v6.reader();
        let mut __tape_v13 = __tape_v13.reader();
        let mut __d_loss_1 = d_ret;
        let __xs_rows_view: &[_] = &xs_rows[..__v1];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
        for __i in (0..__v1).rev() {
            let p = __tape_p.pop();
            let __v6 = __tape_v6.pop();
            let __v13 = __tape_v13.pop();
            let __v2 = __xs_rows_view[__i];
            let __v4 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v2..__v4];
            let __v5 = ys[__i];
            let __v8 = 1.0 as f64;
            let __v9 = ::autodiff::__private::lit::<__S>(__v8);
            let __v10 = __v9 - __v5;
            let __v11 = ::autodiff::__private::lit::<__S>(__v8);
            let __v12 = __v11 - p;
            let __d_xs_row: &mut [_] = &mut __d_xs[__v2..__v4];
            let __d_v15 = -__d_loss_1;
            let __d_v10 = __d_v15 * __v13;
            let __d_v13 = __d_v15 * __v10;
            let __d_v12 = __d_v13 / __v12;
            let __d_p = -__d_v12;
            let __d_v5 = -__d_v10;
            let __d_v5_1 = __d_v5 + __d_v15 * __v6;
            let __d_v6 = __d_v15 * __v5;
            let __d_p_1 = __d_p + __d_v6 / p;
            ::autodiff::__private::add_to(&mut __d_ys[__i], __d_v5_1);
            let _ = <predict as ::autodiff::__private::GenericCopy>::copy()
                .vjp_into(
                    w,
                    &xs_row,
                    __d_p_1,
                    (
                        ::core::option::Option::Some(&mut __d_w[..]),
                        ::core::option::Option::Some(&mut __d_xs_row[..]),
                    ),
                );
        }
        (
            loss_1,
            (__d_w, ::autodiff::__private::unflatten_like(&__matrix_xs, &__d_xs), __d_ys),
        )
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        tangent: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
    ) -> (__S, __S) {
        use ::autodiff::__private::Float as _;
        let __matrix_xs = xs;
        let xs = ::autodiff::__private::flatten(&__matrix_xs);
        let (__dot_w, __dot_xs, __dot_ys) = tangent;
        let mut __dot_w = ::autodiff::__private::tangent("w", __dot_w, &w);
        let mut __dot_xs = ::autodiff::__private::matrix_tangent("xs", &__dot_xs, &xs);
        let mut __dot_ys = ::autodiff::__private::tangent("ys", __dot_ys, &ys);
        let mut xs_rows = ::autodiff::__private::row_offsets(&__matrix_xs);
        let __v0 = 0.0 as f64;
        let loss = ::autodiff::__private::lit::<__S>(__v0);
        let __v1 = ys.len();
        let mut loss_1 = loss;
        let mut __dot_loss_1 = <__S as ::autodiff::__private::Zero>::zero();
        let __xs_rows_view: &[_] = &xs_rows[..__v1];
        let __xs_rows_view_1: &[_] = &xs_rows[(if 0 < __v1 { 1 } else { 0 })..][..__v1];
        for __i in 0..__v1 {
            let __v2 = __xs_rows_view[__i];
            let __v3 = __i + 1;
            let __v4 = __xs_rows_view_1[__i];
            let xs_row: &[_] = &xs[__v2..__v4];
            let __dot_xs_row: &[_] = &__dot_xs[__v2..__v4];
            let (p, __dot_p) = <predict as ::autodiff::__private::GenericCopy>::copy()
                .jvp(
                    w,
                    &xs_row,
                    (
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_w),
                        ),
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_xs_row),
                        ),
                    ),
                );
            let __v5 = ys[__i];
            let __dot_v5 = __dot_ys[__i];
            let __v6 = p.ln();
            let __dot_v6 = ::autodiff::__private::rules::over(__dot_p, p);
            let __v7 = __v5 * __v6;
            let __dot_v7 = __dot_v5 * __v6 + __dot_v6 * __v5;
            let __v8 = 1.0 as f64;
            let __v9 = ::autodiff::__private::lit::<__S>(__v8);
            let __v10 = __v9 - __v5;
            let __dot_v10 = -__dot_v5;
            let __v11 = ::autodiff::__private::lit::<__S>(__v8);
            let __v12 = __v11 - p;
            let __dot_v12 = -__dot_p;
            let __v13 = __v12.ln();
            let __dot_v13 = ::autodiff::__private::rules::over(__dot_v12, __v12);
            let __v14 = __v10 * __v13;
            let __dot_v14 = __dot_v10 * __v13 + __dot_v13 * __v10;
            let __v15 = __v7 + __v14;
            let __dot_v15 = __dot_v7 + __dot_v14;
            let loss_2 = loss_1 - __v15;
            let __dot_loss_2 = __dot_loss_1 - __dot_v15;
            (loss_1, __dot_loss_1) = (loss_2, __dot_loss_2);
        }
        (loss_1, __dot_loss_1)
    }
    #[inline]
    fn call<__S: ::autodiff::__private::Float>(
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
    ) -> __S {
        __logistic_generic(w, xs, ys)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    fn call_on<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
    ) -> __S {
        __logistic_generic(w, xs, ys)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    fn vjp<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: __S,
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
    ) {
        Self::__vjp_all(w, xs, ys, d_ret)
    }
    #[inline]
    fn jvp<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        tangents: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
    ) -> (__S, __S) {
        Self::__jvp_all(w, xs, ys, tangents)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<::std::vec::Vec<__S>>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
        ),
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
    ) {
        let (__after_0, __after_1, __after_2) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(w, xs, ys, d_ret);
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
    fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        tangents: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<::std::vec::Vec<__S>>,
            ::std::vec::Vec<__S>,
        ),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (__S, __S) {
        let (__after_0, __after_1, __after_2) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2) = tangents;
        Self::__jvp_all(w, xs, ys, (__tangent_0, __tangent_1, __tangent_2))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        w: &[__S],
        xs: &[Vec<__S>],
        ys: &[__S],
        d_ret: __S,
        grads: (
            ::core::option::Option<&mut [__S]>,
            (),
            ::core::option::Option<&mut [__S]>,
        ),
    ) -> __S {
        let (__slot_0, __slot_1, __slot_2) = grads;
        let (value, gradient) = Self::__vjp_all(w, xs, ys, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2) = gradient;
        ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
        let _ = __slot_1;
        ::autodiff::__private::accumulate_into_slot(__slot_2, &__gradient_2[..]);
        value
    }
}
