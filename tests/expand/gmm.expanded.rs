use autodiff::differentiable;
pub fn logsumexp(z: &[f64]) -> f64 {
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in z {
        sum += (v - max).exp();
    }
    max + sum.ln()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn logsumexp_grad(z: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_z = ::autodiff::__private::zeros_like(&z[..]);
    let value = __logsumexp_vjp_into(z, 1.0, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn logsumexp_grad_into(z: &[f64], grad: &mut [f64]) -> f64 {
    let __grad_z = grad;
    ::autodiff::__private::clear(&mut __grad_z[..]);
    __logsumexp_vjp_into(z, 1.0, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __logsumexp_vjp_into(z: &[f64], d_ret: f64, grad: &mut [f64]) -> f64 {
    ____logsumexp_generic_vjp_into(z, d_ret, grad)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn logsumexp_vjp(z: &[f64], d_ret: f64) -> (f64, ::std::vec::Vec<f64>) {
    let mut __grad_z = ::autodiff::__private::zeros_like(&z[..]);
    let value = __logsumexp_vjp_into(z, d_ret, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn logsumexp_jvp(z: &[f64], tangent: ::std::vec::Vec<f64>) -> (f64, f64) {
    __logsumexp_generic_jvp(z, tangent)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct logsumexp {}
impl ::autodiff::__private::GenericCopy for logsumexp {
    type Copy = __logsumexp_generic;
    #[inline(always)]
    fn copy() -> __logsumexp_generic {
        __logsumexp_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for logsumexp {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl logsumexp {
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp(self, z: &[f64], d_ret: f64) -> (f64, (::std::vec::Vec<f64>,)) {
        let (value, gradient) = logsumexp_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    pub fn jvp(self, z: &[f64], tangents: (::std::vec::Vec<f64>,)) -> (f64, f64) {
        let (__tangent_0,) = tangents;
        logsumexp_jvp(z, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out(
        self,
        z: &[f64],
        d_ret: ::core::option::Option<f64>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,),
    ) -> (f64, (::std::vec::Vec<f64>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = logsumexp_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out(
        self,
        z: &[f64],
        tangents: (::std::vec::Vec<f64>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (f64, f64) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        logsumexp_jvp(z, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into(
        self,
        z: &[f64],
        d_ret: f64,
        grads: (::core::option::Option<&mut [f64]>,),
    ) -> f64 {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            z.len(),
        );
        let value = __logsumexp_vjp_into(z, d_ret, __buffer_0);
        value
    }
    #[inline(always)]
    pub fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct logsumexp_grad {}
impl ::autodiff::__private::GenericCopy for logsumexp_grad {
    type Copy = logsumexp_grad;
    #[inline(always)]
    fn copy() -> logsumexp_grad {
        logsumexp_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_grad {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        z: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
            .vjp(z, <__S as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(z)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct logsumexp_vjp {}
impl ::autodiff::__private::GenericCopy for logsumexp_vjp {
    type Copy = logsumexp_vjp;
    #[inline(always)]
    fn copy() -> logsumexp_vjp {
        logsumexp_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_vjp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        z: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        let (__value, (__slot_0,)) = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
            .vjp(z, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        d_ret: __S,
    ) -> (__S, ::std::vec::Vec<__S>) {
        Self::call(z, d_ret)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct logsumexp_jvp {}
impl ::autodiff::__private::GenericCopy for logsumexp_jvp {
    type Copy = logsumexp_jvp;
    #[inline(always)]
    fn copy() -> logsumexp_jvp {
        logsumexp_jvp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl logsumexp_jvp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        z: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        let __tangent_0 = tangent;
        <logsumexp as ::autodiff::__private::GenericCopy>::copy().jvp(z, (__tangent_0,))
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        tangent: ::std::vec::Vec<__S>,
    ) -> (__S, __S) {
        Self::call(z, tangent)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __logsumexp_generic<__S: ::autodiff::__private::Float>(z: &[__S]) -> __S {
    use ::autodiff::__private::Float as _;
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for &v in z {
        sum = sum + (v - max).exp();
    }
    max + sum.ln()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn ____logsumexp_generic_vjp_into<__S: ::autodiff::__private::Float>(
    z: &[__S],
    d_ret: __S,
    grad: &mut [__S],
) -> __S {
    let __grad_z = grad;
    use ::autodiff::__private::Float as _;
    let mut __tape_max_1 = ::autodiff::__private::Tape::new();
    let mut __tape_v6 = ::autodiff::__private::Tape::new();
    let mut __d_z = ::autodiff::__private::gradient_buffer("z", __grad_z, &z);
    let max = z[0];
    let __v0 = z.len();
    let mut max_1 = max;
    __tape_max_1.reserve(::core::iter::Iterator::size_hint(&(0..__v0)).0);
    for __i in 0..__v0 {
        __tape_max_1.push(max_1);
        let __v1 = z[__i];
        let max_2 = max_1.max(__v1);
        max_1 = max_2;
    }
    let __v2 = 0.0 as f64;
    let sum = ::autodiff::__private::lit::<__S>(__v2);
    let __v3 = z.len();
    let mut sum_1 = sum;
    __tape_v6.reserve(::core::iter::Iterator::size_hint(&(0..__v3)).0);
    for __i_1 in 0..__v3 {
        let __v4 = z[__i_1];
        let __v5 = __v4 - max_1;
        let __v6 = __v5.exp();
        __tape_v6.push(__v6);
        let sum_2 = sum_1 + __v6;
        sum_1 = sum_2;
    }
    let __v7 = sum_1.ln();
    let __v8 = max_1 + __v7;
    let mut __tape_max_1 = __tape_max_1.reader();
    let mut __tape_v6 = __tape_v6.reader();
    let __d_sum_1 = d_ret / sum_1;
    let mut __d_sum_1_1 = __d_sum_1;
    let mut __d_max_1 = d_ret;
    for __i_1 in (0..__v3).rev() {
        let __v6 = __tape_v6.pop();
        let __d_v5 = __d_sum_1_1 * __v6;
        let __d_max_1_1 = __d_max_1 - __d_v5;
        ::autodiff::__private::add_to(&mut __d_z[__i_1], __d_v5);
        __d_max_1 = __d_max_1_1;
    }
    let mut __d_max_1_2 = __d_max_1;
    for __i in (0..__v0).rev() {
        let max_1 = __tape_max_1.pop();
        let __v1 = z[__i];
        let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
            max_1,
            __v1,
        );
        let __d_max_1_3 = __d_max_1_2 * __partial_max;
        let __d_v1 = __d_max_1_2 * __partial_max_1;
        ::autodiff::__private::add_to(&mut __d_z[__i], __d_v1);
        __d_max_1_2 = __d_max_1_3;
    }
    ::autodiff::__private::add_to(&mut __d_z[0], __d_max_1_2);
    __v8
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __logsumexp_generic_vjp<__S: ::autodiff::__private::Float>(
    z: &[__S],
    d_ret: __S,
) -> (__S, ::std::vec::Vec<__S>) {
    let mut __grad_z = ::autodiff::__private::zeros_like(&z[..]);
    let value = ____logsumexp_generic_vjp_into(z, d_ret, &mut __grad_z);
    (value, __grad_z)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __logsumexp_generic_jvp<__S: ::autodiff::__private::Float>(
    z: &[__S],
    tangent: ::std::vec::Vec<__S>,
) -> (__S, __S) {
    use ::autodiff::__private::Float as _;
    let mut __dot_z = ::autodiff::__private::tangent("z", tangent, &z);
    let max = z[0];
    let __dot_max = __dot_z[0];
    let __v0 = z.len();
    let mut max_1 = max;
    let mut __dot_max_1 = __dot_max;
    for __i in 0..__v0 {
        let __v1 = z[__i];
        let __dot_v1 = __dot_z[__i];
        let max_2 = max_1.max(__v1);
        let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
            max_1,
            __v1,
        );
        let __dot_max_2 = __dot_max_1 * __partial_max + __dot_v1 * __partial_max_1;
        (max_1, __dot_max_1) = (max_2, __dot_max_2);
    }
    let __v2 = 0.0 as f64;
    let sum = ::autodiff::__private::lit::<__S>(__v2);
    let __v3 = z.len();
    let mut sum_1 = sum;
    let mut __dot_sum_1 = <__S as ::autodiff::__private::Zero>::zero();
    for __i_1 in 0..__v3 {
        let __v4 = z[__i_1];
        let __dot_v4 = __dot_z[__i_1];
        let __v5 = __v4 - max_1;
        let __dot_v5 = __dot_v4 - __dot_max_1;
        let __v6 = __v5.exp();
        let __dot_v6 = ::autodiff::__private::rules::times(__dot_v5, __v6);
        let sum_2 = sum_1 + __v6;
        let __dot_sum_2 = __dot_sum_1 + __dot_v6;
        (sum_1, __dot_sum_1) = (sum_2, __dot_sum_2);
    }
    let __v7 = sum_1.ln();
    let __dot_v7 = ::autodiff::__private::rules::over(__dot_sum_1, sum_1);
    let __v8 = max_1 + __v7;
    let __dot_v8 = __dot_max_1 + __dot_v7;
    (__v8, __dot_v8)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct __logsumexp_generic {}
impl ::autodiff::__private::GenericCopy for __logsumexp_generic {
    type Copy = __logsumexp_generic;
    #[inline(always)]
    fn copy() -> __logsumexp_generic {
        __logsumexp_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __logsumexp_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __logsumexp_generic {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(z: &[__S]) -> __S {
        __logsumexp_generic(z)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(self, z: &[__S]) -> __S {
        __logsumexp_generic(z)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>,)) {
        let (value, gradient) = __logsumexp_generic_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (__gradient_0,))
    }
    #[inline]
    pub fn jvp<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        tangents: (::std::vec::Vec<__S>,),
    ) -> (__S, __S) {
        let (__tangent_0,) = tangents;
        __logsumexp_generic_jvp(z, __tangent_0)
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        d_ret: ::core::option::Option<__S>,
        d_after: (impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,),
    ) -> (__S, (::std::vec::Vec<__S>,)) {
        let (__after_0,) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = __logsumexp_generic_vjp(z, d_ret);
        let __gradient_0 = gradient;
        (value, (::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),))
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        tangents: (::std::vec::Vec<__S>,),
        d_after: (impl ::core::marker::Sized,),
    ) -> (__S, __S) {
        let (__after_0,) = d_after;
        let (__tangent_0,) = tangents;
        __logsumexp_generic_jvp(z, __tangent_0)
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        z: &[__S],
        d_ret: __S,
        grads: (::core::option::Option<&mut [__S]>,),
    ) -> __S {
        let (__slot_0,) = grads;
        let mut __scratch_0 = ::autodiff::__private::Scratch::new();
        let __buffer_0 = ::autodiff::__private::slot_or_scratch(
            __slot_0,
            &mut __scratch_0,
            z.len(),
        );
        let value = ____logsumexp_generic_vjp_into(z, d_ret, __buffer_0);
        value
    }
}
pub fn gmm_likelihood(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let l_size = d * (d - 1) / 2;
    let mut q_diag = vec![0.0; k * d];
    for ik in 0..k {
        for j in 0..d {
            q_diag[ik * d + j] = q[ik * d + j].exp();
        }
    }
    let mut centered = vec![0.0; d];
    let mut q_centered = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - mu[ik * d + j];
            }
            for j in 0..d {
                q_centered[j] = q_diag[ik * d + j] * centered[j];
            }
            let mut li = ik * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    q_centered[j] += l[li] * centered[i];
                    li += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += q_centered[j] * q_centered[j];
            }
            main_term[ik] = alpha[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    slse
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn gmm_likelihood_grad(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_mu = ::autodiff::__private::zeros_like(&mu[..]);
    let mut __grad_q = ::autodiff::__private::zeros_like(&q[..]);
    let mut __grad_l = ::autodiff::__private::zeros_like(&l[..]);
    let value = __gmm_likelihood_vjp_into(
        alpha,
        mu,
        q,
        l,
        x,
        d,
        1.0,
        (&mut __grad_mu, &mut __grad_q, &mut __grad_l),
    );
    (value, (__grad_mu, __grad_q, __grad_l))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn gmm_likelihood_grad_into(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    grad: (&mut [f64], &mut [f64], &mut [f64]),
) -> f64 {
    let (__grad_mu, __grad_q, __grad_l) = grad;
    ::autodiff::__private::clear(&mut __grad_mu[..]);
    ::autodiff::__private::clear(&mut __grad_q[..]);
    ::autodiff::__private::clear(&mut __grad_l[..]);
    __gmm_likelihood_vjp_into(
        alpha,
        mu,
        q,
        l,
        x,
        d,
        1.0,
        (__grad_mu, __grad_q, __grad_l),
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __gmm_likelihood_vjp_into(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    d_ret: f64,
    grad: (&mut [f64], &mut [f64], &mut [f64]),
) -> f64 {
    let (__grad_mu, __grad_q, __grad_l) = grad;
    let mut __tape_v7 = ::autodiff::__private::Tape::new();
    let mut __tape_li_1 = ::autodiff::__private::Tape::new();
    let mut __tape_v26 = ::autodiff::__private::Tape::new();
    let mut __tape_main_term_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_main_term_gradient_at_call = ::autodiff::__private::ArrayTape::new();
    let mut __tape_centered_whole = ::autodiff::__private::SnapshotTape::new();
    let mut __d_mu = ::autodiff::__private::gradient_buffer("mu", __grad_mu, &mu);
    let mut __d_q = ::autodiff::__private::gradient_buffer("q", __grad_q, &q);
    let mut __d_l = ::autodiff::__private::gradient_buffer("l", __grad_l, &l);
    let k = alpha.len();
    let __v0 = x.len();
    let n = __v0 / d;
    let __v1 = d - 1;
    let __v2 = d * __v1;
    let l_size = __v2 / 2;
    let __v3 = k * d;
    let mut q_diag = ::std::vec![0.0; __v3];
    __tape_v7
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..k))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
        );
    for __i in 0..k {
        let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
        for __i_1 in 0..d {
            let __v4 = __i * d;
            let __v5 = __v4 + __i_1;
            let __v6 = __q_view[__i_1];
            let __v7 = __v6.exp();
            __tape_v7.push(__v7);
            q_diag[__v5] = __v7;
        }
    }
    let mut centered = ::std::vec![0.0; d];
    let mut q_centered = ::std::vec![0.0; d];
    let mut main_term = ::std::vec![0.0; k];
    let mut __d_main_term = ::autodiff::__private::zeros_like(&main_term);
    let mut __d_q_centered = ::autodiff::__private::zeros_like(&q_centered);
    let mut __d_centered = ::autodiff::__private::zeros_like(&centered);
    let mut __d_q_diag = ::autodiff::__private::zeros_like(&q_diag);
    let mut __d_slse = d_ret;
    let mut slse = 0.0;
    __tape_centered_whole
        .reserve(::core::iter::Iterator::size_hint(&(0..k)).0, centered.len());
    __tape_v26
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..k))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
        );
    __tape_li_1.reserve(::core::iter::Iterator::size_hint(&(0..k)).0);
    for __i_2 in 0..n {
        for __i_3 in 0..k {
            let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
            let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
            for __i_4 in 0..d {
                let __v10 = __x_view[__i_4];
                let __v13 = __mu_view[__i_4];
                let __v14 = __v10 - __v13;
                centered[__i_4] = __v14;
            }
            __tape_centered_whole.push(&centered[..]);
            let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            let __centered_view: &[_] = &centered[..d];
            for __i_5 in 0..d {
                let __v17 = __q_diag_view[__i_5];
                let __v18 = __centered_view[__i_5];
                let __v19 = __v17 * __v18;
                q_centered[__i_5] = __v19;
            }
            let li = __i_3 * l_size;
            let mut li_1 = li;
            for __i_6 in 0..d {
                let __v20 = __i_6 + 1;
                let mut li_2 = li_1;
                for __i_7 in __v20..d {
                    let __v21 = l[li_2];
                    let __v22 = centered[__i_6];
                    let __v23 = __v21 * __v22;
                    let __v24 = q_centered[__i_7];
                    let __v25 = __v24 + __v23;
                    q_centered[__i_7] = __v25;
                    let li_3 = li_2 + 1;
                    li_2 = li_3;
                }
                li_1 = li_2;
            }
            __tape_li_1.push(li_1);
            let mut sqnorm = 0.0;
            let __q_centered_view: &[_] = &q_centered[..d];
            for __i_8 in 0..d {
                let __v26 = __q_centered_view[__i_8];
                __tape_v26.push(__v26);
                let __v27 = __v26 * __v26;
                let sqnorm_1 = sqnorm + __v27;
                sqnorm = sqnorm_1;
            }
            let __v28 = alpha[__i_3];
            let __v29 = 0.5 * sqnorm;
            let __v30 = __v28 - __v29;
            main_term[__i_3] = __v30;
        }
        let __v31 = if {
            use ::autodiff::__private::CotangentLinear as _;
            ::autodiff::__private::derivative_of!(logsumexp, cotangent_linear())
                .cotangent_linear()
        } {
            ::autodiff::__private::derivative_of!(logsumexp, vjp_into(_, _, _))
                .vjp_into(
                    &main_term,
                    ::autodiff::__private::One::one(),
                    (
                        ::core::option::Option::Some(
                            __tape_main_term_gradient_at_call.push_zeros(main_term.len()),
                        ),
                    ),
                )
        } else {
            __tape_main_term_at_call.push(&main_term[..]);
            logsumexp(&main_term)
        };
        let slse_1 = slse + __v31;
        if {
            use ::autodiff::__private::CotangentLinear as _;
            ::autodiff::__private::derivative_of!(logsumexp, cotangent_linear())
                .cotangent_linear()
        } {
            __tape_main_term_gradient_at_call
                .pop_add_scaled(&mut __d_main_term[..], __d_slse);
        } else {
            let __main_term_at_call = __tape_main_term_at_call.pop();
            let _ = ::autodiff::__private::derivative_of!(
                logsumexp, vjp_into(_, _, _); through 0usize
            )
                .vjp_into(
                    &__main_term_at_call,
                    __d_slse,
                    (::core::option::Option::Some(&mut __d_main_term[..]),),
                );
        }
        for __i_3 in (0..k).rev() {
            let __centered_stored = __tape_centered_whole.pop();
            let li_1 = __tape_li_1.pop();
            let __d_v30 = __d_main_term[__i_3];
            __d_main_term[__i_3] = ::autodiff::__private::Zero::zero();
            let __d_v29 = -__d_v30;
            let __d_sqnorm = __d_v29 * 0.5;
            let mut __d_sqnorm_1 = __d_sqnorm;
            let __d_q_centered_view: &mut [_] = &mut __d_q_centered[..d];
            for __i_8 in (0..d).rev() {
                let __v26 = __tape_v26.pop();
                let __d_v26 = __d_sqnorm_1 * (__v26 + __v26);
                ::autodiff::__private::add_to(&mut __d_q_centered_view[__i_8], __d_v26);
            }
            let mut __counter_li_1 = li_1;
            for __i_6 in (0..d).rev() {
                let li_2 = __counter_li_1;
                let __v20 = __i_6 + 1;
                let mut __counter_li_2 = li_2;
                let mut __sum_centered = 0.0;
                for __i_7 in (__v20..d).rev() {
                    __counter_li_2 -= 1;
                    let li_2 = __counter_li_2;
                    let __v21 = l[li_2];
                    let __v22 = __centered_stored[__i_6];
                    let __d_increment = __d_q_centered[__i_7];
                    let __d_v21 = __d_increment * __v22;
                    let __d_v22 = __d_increment * __v21;
                    ::autodiff::__private::add_to(&mut __sum_centered, __d_v22);
                    ::autodiff::__private::add_to(&mut __d_l[li_2], __d_v21);
                }
                if __v20 < d {
                    ::autodiff::__private::add_to(
                        &mut __d_centered[__i_6],
                        __sum_centered,
                    );
                }
                __counter_li_1 = __counter_li_2;
            }
            let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            let __d_q_diag_view: &mut [_] = &mut __d_q_diag[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            let __d_centered_view: &mut [_] = &mut __d_centered[..d];
            for __i_5 in (0..d).rev() {
                let __v17 = __q_diag_view[__i_5];
                let __v18 = __centered_stored[__i_5];
                let __d_v19 = __d_q_centered[__i_5];
                __d_q_centered[__i_5] = ::autodiff::__private::Zero::zero();
                let __d_v17 = __d_v19 * __v18;
                let __d_v18 = __d_v19 * __v17;
                ::autodiff::__private::add_to(&mut __d_centered_view[__i_5], __d_v18);
                ::autodiff::__private::add_to(&mut __d_q_diag_view[__i_5], __d_v17);
            }
            let __d_mu_view: &mut [_] = &mut __d_mu[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            for __i_4 in (0..d).rev() {
                let __d_v14 = __d_centered[__i_4];
                __d_centered[__i_4] = ::autodiff::__private::Zero::zero();
                let __d_v13 = -__d_v14;
                ::autodiff::__private::add_to(&mut __d_mu_view[__i_4], __d_v13);
            }
        }
        slse = slse_1;
    }
    let mut __tape_v7 = __tape_v7.reader();
    for __i in (0..k).rev() {
        let __d_q_view: &mut [_] = &mut __d_q[(if 0 < d {
            (__i * d)
        } else {
            0
        })..][..d];
        for __i_1 in (0..d).rev() {
            let __v7 = __tape_v7.pop();
            let __v4 = __i * d;
            let __v5 = __v4 + __i_1;
            let __d_v7 = __d_q_diag[__v5];
            __d_q_diag[__v5] = ::autodiff::__private::Zero::zero();
            let __d_v6 = __d_v7 * __v7;
            ::autodiff::__private::add_to(&mut __d_q_view[__i_1], __d_v6);
        }
    }
    slse
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn gmm_likelihood_vjp(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    d_ret: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let mut __grad_mu = ::autodiff::__private::zeros_like(&mu[..]);
    let mut __grad_q = ::autodiff::__private::zeros_like(&q[..]);
    let mut __grad_l = ::autodiff::__private::zeros_like(&l[..]);
    let value = __gmm_likelihood_vjp_into(
        alpha,
        mu,
        q,
        l,
        x,
        d,
        d_ret,
        (&mut __grad_mu, &mut __grad_q, &mut __grad_l),
    );
    (value, (__grad_mu, __grad_q, __grad_l))
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn gmm_likelihood_jvp(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    tangent: (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>),
) -> (f64, f64) {
    let (__dot_mu, __dot_q, __dot_l) = tangent;
    let mut __dot_mu = ::autodiff::__private::tangent("mu", __dot_mu, &mu);
    let mut __dot_q = ::autodiff::__private::tangent("q", __dot_q, &q);
    let mut __dot_l = ::autodiff::__private::tangent("l", __dot_l, &l);
    let k = alpha.len();
    let __v0 = x.len();
    let n = __v0 / d;
    let __v1 = d - 1;
    let __v2 = d * __v1;
    let l_size = __v2 / 2;
    let __v3 = k * d;
    let mut q_diag = ::std::vec![0.0; __v3];
    let mut __dot_q_diag = ::autodiff::__private::zeros_like(&q_diag);
    for __i in 0..k {
        let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
        let __dot_q_view: &[_] = &__dot_q[(if 0 < d { (__i * d) } else { 0 })..][..d];
        for __i_1 in 0..d {
            let __v4 = __i * d;
            let __v5 = __v4 + __i_1;
            let __v6 = __q_view[__i_1];
            let __dot_v6 = __dot_q_view[__i_1];
            let __v7 = __v6.exp();
            let __dot_v7 = ::autodiff::__private::rules::times(__dot_v6, __v7);
            q_diag[__v5] = __v7;
            __dot_q_diag[__v5] = __dot_v7;
        }
    }
    let mut centered = ::std::vec![0.0; d];
    let mut __dot_centered = ::autodiff::__private::zeros_like(&centered);
    let mut q_centered = ::std::vec![0.0; d];
    let mut __dot_q_centered = ::autodiff::__private::zeros_like(&q_centered);
    let mut main_term = ::std::vec![0.0; k];
    let mut __dot_main_term = ::autodiff::__private::zeros_like(&main_term);
    let mut slse = 0.0;
    let mut __dot_slse = ::autodiff::__private::zero_like(&slse);
    for __i_2 in 0..n {
        for __i_3 in 0..k {
            let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
            let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
            let __dot_mu_view: &[_] = &__dot_mu[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            for __i_4 in 0..d {
                let __v8 = __i_2 * d;
                let __v9 = __v8 + __i_4;
                let __v10 = __x_view[__i_4];
                let __v11 = __i_3 * d;
                let __v12 = __v11 + __i_4;
                let __v13 = __mu_view[__i_4];
                let __dot_v13 = __dot_mu_view[__i_4];
                let __v14 = __v10 - __v13;
                let __dot_v14 = -__dot_v13;
                centered[__i_4] = __v14;
                __dot_centered[__i_4] = __dot_v14;
            }
            let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            let __centered_view: &[_] = &centered[..d];
            let __dot_q_diag_view: &[_] = &__dot_q_diag[(if 0 < d {
                (__i_3 * d)
            } else {
                0
            })..][..d];
            let __dot_centered_view: &[_] = &__dot_centered[..d];
            for __i_5 in 0..d {
                let __v15 = __i_3 * d;
                let __v16 = __v15 + __i_5;
                let __v17 = __q_diag_view[__i_5];
                let __dot_v17 = __dot_q_diag_view[__i_5];
                let __v18 = __centered_view[__i_5];
                let __dot_v18 = __dot_centered_view[__i_5];
                let __v19 = __v17 * __v18;
                let __dot_v19 = __dot_v17 * __v18 + __dot_v18 * __v17;
                q_centered[__i_5] = __v19;
                __dot_q_centered[__i_5] = __dot_v19;
            }
            let li = __i_3 * l_size;
            let mut li_1 = li;
            for __i_6 in 0..d {
                let __v20 = __i_6 + 1;
                let mut li_2 = li_1;
                for __i_7 in __v20..d {
                    let __v21 = l[li_2];
                    let __dot_v21 = __dot_l[li_2];
                    let __v22 = centered[__i_6];
                    let __dot_v22 = __dot_centered[__i_6];
                    let __v23 = __v21 * __v22;
                    let __dot_v23 = __dot_v21 * __v22 + __dot_v22 * __v21;
                    let __v24 = q_centered[__i_7];
                    let __dot_v24 = __dot_q_centered[__i_7];
                    let __v25 = __v24 + __v23;
                    let __dot_v25 = __dot_v24 + __dot_v23;
                    q_centered[__i_7] = __v25;
                    __dot_q_centered[__i_7] = __dot_v25;
                    let li_3 = li_2 + 1;
                    li_2 = li_3;
                }
                li_1 = li_2;
            }
            let mut sqnorm = 0.0;
            let mut __dot_sqnorm = 0.0;
            let __q_centered_view: &[_] = &q_centered[..d];
            let __dot_q_centered_view: &[_] = &__dot_q_centered[..d];
            for __i_8 in 0..d {
                let __v26 = __q_centered_view[__i_8];
                let __dot_v26 = __dot_q_centered_view[__i_8];
                let __v27 = __v26 * __v26;
                let __dot_v27 = __dot_v26 * (__v26 + __v26);
                let sqnorm_1 = sqnorm + __v27;
                let __dot_sqnorm_1 = __dot_sqnorm + __dot_v27;
                (sqnorm, __dot_sqnorm) = (sqnorm_1, __dot_sqnorm_1);
            }
            let __v28 = alpha[__i_3];
            let __v29 = 0.5 * sqnorm;
            let __dot_v29 = __dot_sqnorm * 0.5;
            let __v30 = __v28 - __v29;
            let __dot_v30 = -__dot_v29;
            main_term[__i_3] = __v30;
            __dot_main_term[__i_3] = __dot_v30;
        }
        let (__v31, __dot_v31) = ::autodiff::__private::derivative_of!(
            logsumexp, jvp(_, _); through 0usize
        )
            .jvp(
                &main_term,
                (
                    ::core::convert::Into::into(
                        ::core::clone::Clone::clone(&__dot_main_term),
                    ),
                ),
            );
        let slse_1 = slse + __v31;
        let __dot_slse_1 = __dot_slse + __dot_v31;
        (slse, __dot_slse) = (slse_1, __dot_slse_1);
    }
    (slse, __dot_slse)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct gmm_likelihood {}
impl ::autodiff::__private::GenericCopy for gmm_likelihood {
    type Copy = __gmm_likelihood_generic;
    #[inline(always)]
    fn copy() -> __gmm_likelihood_generic {
        __gmm_likelihood_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for gmm_likelihood {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl gmm_likelihood {
    #[doc(hidden)]
    pub const __AUTODIFF_THROUGH: &'static [bool] = &[
        ::autodiff::__private::through_of!(logsumexp; 0usize),
        true,
        true,
        true,
        ::autodiff::__private::through_of!(logsumexp; 0usize),
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
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        d_ret: f64,
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
        ),
    ) {
        let mut __tape_v7 = ::autodiff::__private::Tape::new();
        let mut __tape_li_1 = ::autodiff::__private::Tape::new();
        let mut __tape_v26 = ::autodiff::__private::Tape::new();
        let mut __tape_main_term_at_call = ::autodiff::__private::ArrayTape::new();
        let mut __tape_main_term_gradient_at_call = ::autodiff::__private::ArrayTape::new();
        let mut __tape_centered_whole = ::autodiff::__private::SnapshotTape::new();
        let mut __d_alpha = ::autodiff::__private::zeros_like(&alpha);
        let mut __d_mu = ::autodiff::__private::zeros_like(&mu);
        let mut __d_q = ::autodiff::__private::zeros_like(&q);
        let mut __d_l = ::autodiff::__private::zeros_like(&l);
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let k = alpha.len();
        let __v0 = x.len();
        let n = __v0 / d;
        let __v1 = d - 1;
        let __v2 = d * __v1;
        let l_size = __v2 / 2;
        let __v3 = k * d;
        let mut q_diag = ::std::vec![0.0; __v3];
        __tape_v7
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..k))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
            );
        for __i in 0..k {
            let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
            for __i_1 in 0..d {
                let __v4 = __i * d;
                let __v5 = __v4 + __i_1;
                let __v6 = __q_view[__i_1];
                let __v7 = __v6.exp();
                __tape_v7.push(__v7);
                q_diag[__v5] = __v7;
            }
        }
        let mut centered = ::std::vec![0.0; d];
        let mut q_centered = ::std::vec![0.0; d];
        let mut main_term = ::std::vec![0.0; k];
        let mut __d_main_term = ::autodiff::__private::zeros_like(&main_term);
        let mut __d_q_centered = ::autodiff::__private::zeros_like(&q_centered);
        let mut __d_centered = ::autodiff::__private::zeros_like(&centered);
        let mut __d_q_diag = ::autodiff::__private::zeros_like(&q_diag);
        let mut __d_slse = d_ret;
        let mut slse = 0.0;
        __tape_centered_whole
            .reserve(::core::iter::Iterator::size_hint(&(0..k)).0, centered.len());
        __tape_v26
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..k))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
            );
        __tape_li_1.reserve(::core::iter::Iterator::size_hint(&(0..k)).0);
        for __i_2 in 0..n {
            for __i_3 in 0..k {
                let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
                let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
                for __i_4 in 0..d {
                    let __v10 = __x_view[__i_4];
                    let __v13 = __mu_view[__i_4];
                    let __v14 = __v10 - __v13;
                    centered[__i_4] = __v14;
                }
                __tape_centered_whole.push(&centered[..]);
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __centered_view: &[_] = &centered[..d];
                for __i_5 in 0..d {
                    let __v17 = __q_diag_view[__i_5];
                    let __v18 = __centered_view[__i_5];
                    let __v19 = __v17 * __v18;
                    q_centered[__i_5] = __v19;
                }
                let li = __i_3 * l_size;
                let mut li_1 = li;
                for __i_6 in 0..d {
                    let __v20 = __i_6 + 1;
                    let mut li_2 = li_1;
                    for __i_7 in __v20..d {
                        let __v21 = l[li_2];
                        let __v22 = centered[__i_6];
                        let __v23 = __v21 * __v22;
                        let __v24 = q_centered[__i_7];
                        let __v25 = __v24 + __v23;
                        q_centered[__i_7] = __v25;
                        let li_3 = li_2 + 1;
                        li_2 = li_3;
                    }
                    li_1 = li_2;
                }
                __tape_li_1.push(li_1);
                let mut sqnorm = 0.0;
                let __q_centered_view: &[_] = &q_centered[..d];
                for __i_8 in 0..d {
                    let __v26 = __q_centered_view[__i_8];
                    __tape_v26.push(__v26);
                    let __v27 = __v26 * __v26;
                    let sqnorm_1 = sqnorm + __v27;
                    sqnorm = sqnorm_1;
                }
                let __v28 = alpha[__i_3];
                let __v29 = 0.5 * sqnorm;
                let __v30 = __v28 - __v29;
                main_term[__i_3] = __v30;
            }
            let __v31 = if {
                use ::autodiff::__private::CotangentLinear as _;
                ::autodiff::__private::derivative_of!(logsumexp, cotangent_linear())
                    .cotangent_linear()
            } {
                ::autodiff::__private::derivative_of!(logsumexp, vjp_into(_, _, _))
                    .vjp_into(
                        &main_term,
                        ::autodiff::__private::One::one(),
                        (
                            ::core::option::Option::Some(
                                __tape_main_term_gradient_at_call
                                    .push_zeros(main_term.len()),
                            ),
                        ),
                    )
            } else {
                __tape_main_term_at_call.push(&main_term[..]);
                logsumexp(&main_term)
            };
            let slse_1 = slse + __v31;
            if {
                use ::autodiff::__private::CotangentLinear as _;
                ::autodiff::__private::derivative_of!(logsumexp, cotangent_linear())
                    .cotangent_linear()
            } {
                __tape_main_term_gradient_at_call
                    .pop_add_scaled(&mut __d_main_term[..], __d_slse);
            } else {
                let __main_term_at_call = __tape_main_term_at_call.pop();
                let _ = ::autodiff::__private::derivative_of!(
                    logsumexp, vjp_into(_, _, _)
                )
                    .vjp_into(
                        &__main_term_at_call,
                        __d_slse,
                        (::core::option::Option::Some(&mut __d_main_term[..]),),
                    );
            }
            for __i_3 in (0..k).rev() {
                let __centered_stored = __tape_centered_whole.pop();
                let li_1 = __tape_li_1.pop();
                let __d_v30 = __d_main_term[__i_3];
                __d_main_term[__i_3] = ::autodiff::__private::Zero::zero();
                let __d_v29 = -__d_v30;
                let __d_sqnorm = __d_v29 * 0.5;
                ::autodiff::__private::add_to(&mut __d_alpha[__i_3], __d_v30);
                let mut __d_sqnorm_1 = __d_sqnorm;
                let __d_q_centered_view: &mut [_] = &mut __d_q_centered[..d];
                for __i_8 in (0..d).rev() {
                    let __v26 = __tape_v26.pop();
                    let __d_v26 = __d_sqnorm_1 * (__v26 + __v26);
                    ::autodiff::__private::add_to(
                        &mut __d_q_centered_view[__i_8],
                        __d_v26,
                    );
                }
                let mut __counter_li_1 = li_1;
                for __i_6 in (0..d).rev() {
                    let li_2 = __counter_li_1;
                    let __v20 = __i_6 + 1;
                    let mut __counter_li_2 = li_2;
                    let mut __sum_centered = 0.0;
                    for __i_7 in (__v20..d).rev() {
                        __counter_li_2 -= 1;
                        let li_2 = __counter_li_2;
                        let __v21 = l[li_2];
                        let __v22 = __centered_stored[__i_6];
                        let __d_increment = __d_q_centered[__i_7];
                        let __d_v21 = __d_increment * __v22;
                        let __d_v22 = __d_increment * __v21;
                        ::autodiff::__private::add_to(&mut __sum_centered, __d_v22);
                        ::autodiff::__private::add_to(&mut __d_l[li_2], __d_v21);
                    }
                    if __v20 < d {
                        ::autodiff::__private::add_to(
                            &mut __d_centered[__i_6],
                            __sum_centered,
                        );
                    }
                    __counter_li_1 = __counter_li_2;
                }
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_q_diag_view: &mut [_] = &mut __d_q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_centered_view: &mut [_] = &mut __d_centered[..d];
                for __i_5 in (0..d).rev() {
                    let __v17 = __q_diag_view[__i_5];
                    let __v18 = __centered_stored[__i_5];
                    let __d_v19 = __d_q_centered[__i_5];
                    __d_q_centered[__i_5] = ::autodiff::__private::Zero::zero();
                    let __d_v17 = __d_v19 * __v18;
                    let __d_v18 = __d_v19 * __v17;
                    ::autodiff::__private::add_to(
                        &mut __d_centered_view[__i_5],
                        __d_v18,
                    );
                    ::autodiff::__private::add_to(&mut __d_q_diag_view[__i_5], __d_v17);
                }
                let __d_mu_view: &mut [_] = &mut __d_mu[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_x_view: &mut [_] = &mut __d_x[(if 0 < d {
                    (__i_2 * d)
                } else {
                    0
                })..][..d];
                for __i_4 in (0..d).rev() {
                    let __d_v14 = __d_centered[__i_4];
                    __d_centered[__i_4] = ::autodiff::__private::Zero::zero();
                    let __d_v13 = -__d_v14;
                    ::autodiff::__private::add_to(&mut __d_mu_view[__i_4], __d_v13);
                    ::autodiff::__private::add_to(&mut __d_x_view[__i_4], __d_v14);
                }
            }
            slse = slse_1;
        }
        let mut __tape_v7 = __tape_v7.reader();
        for __i in (0..k).rev() {
            let __d_q_view: &mut [_] = &mut __d_q[(if 0 < d {
                (__i * d)
            } else {
                0
            })..][..d];
            for __i_1 in (0..d).rev() {
                let __v7 = __tape_v7.pop();
                let __v4 = __i * d;
                let __v5 = __v4 + __i_1;
                let __d_v7 = __d_q_diag[__v5];
                __d_q_diag[__v5] = ::autodiff::__private::Zero::zero();
                let __d_v6 = __d_v7 * __v7;
                ::autodiff::__private::add_to(&mut __d_q_view[__i_1], __d_v6);
            }
        }
        (slse, (__d_alpha, __d_mu, __d_q, __d_l, __d_x))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all(
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        tangent: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
        ),
    ) -> (f64, f64) {
        let (__dot_alpha, __dot_mu, __dot_q, __dot_l, __dot_x) = tangent;
        let mut __dot_alpha = ::autodiff::__private::tangent(
            "alpha",
            __dot_alpha,
            &alpha,
        );
        let mut __dot_mu = ::autodiff::__private::tangent("mu", __dot_mu, &mu);
        let mut __dot_q = ::autodiff::__private::tangent("q", __dot_q, &q);
        let mut __dot_l = ::autodiff::__private::tangent("l", __dot_l, &l);
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let k = alpha.len();
        let __v0 = x.len();
        let n = __v0 / d;
        let __v1 = d - 1;
        let __v2 = d * __v1;
        let l_size = __v2 / 2;
        let __v3 = k * d;
        let mut q_diag = ::std::vec![0.0; __v3];
        let mut __dot_q_diag = ::autodiff::__private::zeros_like(&q_diag);
        for __i in 0..k {
            let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
            let __dot_q_view: &[_] = &__dot_q[(if 0 < d {
                (__i * d)
            } else {
                0
            })..][..d];
            for __i_1 in 0..d {
                let __v4 = __i * d;
                let __v5 = __v4 + __i_1;
                let __v6 = __q_view[__i_1];
                let __dot_v6 = __dot_q_view[__i_1];
                let __v7 = __v6.exp();
                let __dot_v7 = ::autodiff::__private::rules::times(__dot_v6, __v7);
                q_diag[__v5] = __v7;
                __dot_q_diag[__v5] = __dot_v7;
            }
        }
        let mut centered = ::std::vec![0.0; d];
        let mut __dot_centered = ::autodiff::__private::zeros_like(&centered);
        let mut q_centered = ::std::vec![0.0; d];
        let mut __dot_q_centered = ::autodiff::__private::zeros_like(&q_centered);
        let mut main_term = ::std::vec![0.0; k];
        let mut __dot_main_term = ::autodiff::__private::zeros_like(&main_term);
        let mut slse = 0.0;
        let mut __dot_slse = ::autodiff::__private::zero_like(&slse);
        for __i_2 in 0..n {
            for __i_3 in 0..k {
                let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
                let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
                let __dot_x_view: &[_] = &__dot_x[(if 0 < d {
                    (__i_2 * d)
                } else {
                    0
                })..][..d];
                let __dot_mu_view: &[_] = &__dot_mu[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                for __i_4 in 0..d {
                    let __v8 = __i_2 * d;
                    let __v9 = __v8 + __i_4;
                    let __v10 = __x_view[__i_4];
                    let __dot_v10 = __dot_x_view[__i_4];
                    let __v11 = __i_3 * d;
                    let __v12 = __v11 + __i_4;
                    let __v13 = __mu_view[__i_4];
                    let __dot_v13 = __dot_mu_view[__i_4];
                    let __v14 = __v10 - __v13;
                    let __dot_v14 = __dot_v10 - __dot_v13;
                    centered[__i_4] = __v14;
                    __dot_centered[__i_4] = __dot_v14;
                }
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __centered_view: &[_] = &centered[..d];
                let __dot_q_diag_view: &[_] = &__dot_q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __dot_centered_view: &[_] = &__dot_centered[..d];
                for __i_5 in 0..d {
                    let __v15 = __i_3 * d;
                    let __v16 = __v15 + __i_5;
                    let __v17 = __q_diag_view[__i_5];
                    let __dot_v17 = __dot_q_diag_view[__i_5];
                    let __v18 = __centered_view[__i_5];
                    let __dot_v18 = __dot_centered_view[__i_5];
                    let __v19 = __v17 * __v18;
                    let __dot_v19 = __dot_v17 * __v18 + __dot_v18 * __v17;
                    q_centered[__i_5] = __v19;
                    __dot_q_centered[__i_5] = __dot_v19;
                }
                let li = __i_3 * l_size;
                let mut li_1 = li;
                for __i_6 in 0..d {
                    let __v20 = __i_6 + 1;
                    let mut li_2 = li_1;
                    for __i_7 in __v20..d {
                        let __v21 = l[li_2];
                        let __dot_v21 = __dot_l[li_2];
                        let __v22 = centered[__i_6];
                        let __dot_v22 = __dot_centered[__i_6];
                        let __v23 = __v21 * __v22;
                        let __dot_v23 = __dot_v21 * __v22 + __dot_v22 * __v21;
                        let __v24 = q_centered[__i_7];
                        let __dot_v24 = __dot_q_centered[__i_7];
                        let __v25 = __v24 + __v23;
                        let __dot_v25 = __dot_v24 + __dot_v23;
                        q_centered[__i_7] = __v25;
                        __dot_q_centered[__i_7] = __dot_v25;
                        let li_3 = li_2 + 1;
                        li_2 = li_3;
                    }
                    li_1 = li_2;
                }
                let mut sqnorm = 0.0;
                let mut __dot_sqnorm = 0.0;
                let __q_centered_view: &[_] = &q_centered[..d];
                let __dot_q_centered_view: &[_] = &__dot_q_centered[..d];
                for __i_8 in 0..d {
                    let __v26 = __q_centered_view[__i_8];
                    let __dot_v26 = __dot_q_centered_view[__i_8];
                    let __v27 = __v26 * __v26;
                    let __dot_v27 = __dot_v26 * (__v26 + __v26);
                    let sqnorm_1 = sqnorm + __v27;
                    let __dot_sqnorm_1 = __dot_sqnorm + __dot_v27;
                    (sqnorm, __dot_sqnorm) = (sqnorm_1, __dot_sqnorm_1);
                }
                let __v28 = alpha[__i_3];
                let __dot_v28 = __dot_alpha[__i_3];
                let __v29 = 0.5 * sqnorm;
                let __dot_v29 = __dot_sqnorm * 0.5;
                let __v30 = __v28 - __v29;
                let __dot_v30 = __dot_v28 - __dot_v29;
                main_term[__i_3] = __v30;
                __dot_main_term[__i_3] = __dot_v30;
            }
            let (__v31, __dot_v31) = ::autodiff::__private::derivative_of!(
                logsumexp, jvp(_, _)
            )
                .jvp(
                    &main_term,
                    (
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_main_term),
                        ),
                    ),
                );
            let slse_1 = slse + __v31;
            let __dot_slse_1 = __dot_slse + __dot_v31;
            (slse, __dot_slse) = (slse_1, __dot_slse_1);
        }
        (slse, __dot_slse)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp(
        self,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        d_ret: f64,
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            (),
        ),
    ) {
        let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
        (
            value,
            (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4, ()),
        )
    }
    #[inline]
    pub fn jvp(
        self,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        tangents: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            (),
        ),
    ) -> (f64, f64) {
        let (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4, _) = tangents;
        Self::__jvp_all(
            alpha,
            mu,
            q,
            l,
            x,
            d,
            (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4),
        )
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out(
        self,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        d_ret: ::core::option::Option<f64>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<f64>>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (
        f64,
        (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            (),
        ),
    ) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4, __after_5) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => 0.0,
        };
        let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
                ::autodiff::__private::PassOn::pass_on(__after_3, __gradient_3),
                ::autodiff::__private::PassOn::pass_on(__after_4, __gradient_4),
                ::autodiff::__private::PassOn::pass_on(__after_5, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out(
        self,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        tangents: (
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            ::std::vec::Vec<f64>,
            (),
        ),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (f64, f64) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4, __after_5) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4, _) = tangents;
        Self::__jvp_all(
            alpha,
            mu,
            q,
            l,
            x,
            d,
            (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4),
        )
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into(
        self,
        alpha: &[f64],
        mu: &[f64],
        q: &[f64],
        l: &[f64],
        x: &[f64],
        d: usize,
        d_ret: f64,
        grads: (
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            ::core::option::Option<&mut [f64]>,
            (),
        ),
    ) -> f64 {
        let (__slot_0, __slot_1, __slot_2, __slot_3, __slot_4, __slot_5) = grads;
        let value = if __slot_0.is_none() && __slot_4.is_none() {
            let mut __scratch_1 = ::autodiff::__private::Scratch::new();
            let __buffer_1 = ::autodiff::__private::slot_or_scratch(
                __slot_1,
                &mut __scratch_1,
                mu.len(),
            );
            let mut __scratch_2 = ::autodiff::__private::Scratch::new();
            let __buffer_2 = ::autodiff::__private::slot_or_scratch(
                __slot_2,
                &mut __scratch_2,
                q.len(),
            );
            let mut __scratch_3 = ::autodiff::__private::Scratch::new();
            let __buffer_3 = ::autodiff::__private::slot_or_scratch(
                __slot_3,
                &mut __scratch_3,
                l.len(),
            );
            let value = __gmm_likelihood_vjp_into(
                alpha,
                mu,
                q,
                l,
                x,
                d,
                d_ret,
                (__buffer_1, __buffer_2, __buffer_3),
            );
            value
        } else {
            let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
            let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
            ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_2, &__gradient_2[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_3, &__gradient_3[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_4, &__gradient_4[..]);
            value
        };
        value
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct gmm_likelihood_grad {}
impl ::autodiff::__private::GenericCopy for gmm_likelihood_grad {
    type Copy = gmm_likelihood_grad;
    #[inline(always)]
    fn copy() -> gmm_likelihood_grad {
        gmm_likelihood_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl gmm_likelihood_grad {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__value, (_, __slot_1, __slot_2, __slot_3, _, _)) = <gmm_likelihood as ::autodiff::__private::GenericCopy>::copy()
            .vjp(alpha, mu, q, l, x, d, <__S as ::autodiff::__private::One>::one());
        (__value, (__slot_1, __slot_2, __slot_3))
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::call(alpha, mu, q, l, x, d)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct gmm_likelihood_vjp {}
impl ::autodiff::__private::GenericCopy for gmm_likelihood_vjp {
    type Copy = gmm_likelihood_vjp;
    #[inline(always)]
    fn copy() -> gmm_likelihood_vjp {
        gmm_likelihood_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl gmm_likelihood_vjp {
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        let (__value, (_, __slot_1, __slot_2, __slot_3, _, _)) = <gmm_likelihood as ::autodiff::__private::GenericCopy>::copy()
            .vjp(alpha, mu, q, l, x, d, d_ret);
        (__value, (__slot_1, __slot_2, __slot_3))
    }
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>)) {
        Self::call(alpha, mu, q, l, x, d, d_ret)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
pub fn __gmm_likelihood_generic<__S: ::autodiff::__private::Float>(
    alpha: &[__S],
    mu: &[__S],
    q: &[__S],
    l: &[__S],
    x: &[__S],
    d: usize,
) -> __S {
    use ::autodiff::__private::Float as _;
    let k = alpha.len();
    let n = x.len() / d;
    let l_size = d * (d - 1) / 2;
    let mut q_diag = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); k * d];
    for ik in 0..k {
        for j in 0..d {
            q_diag[ik * d + j] = q[ik * d + j].exp();
        }
    }
    let mut centered = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); d];
    let mut q_centered = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); d];
    let mut main_term = vec![::autodiff::__private::lit:: < __S > (0.0 as f64); k];
    let mut slse = ::autodiff::__private::lit::<__S>(0.0 as f64);
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - mu[ik * d + j];
            }
            for j in 0..d {
                q_centered[j] = q_diag[ik * d + j] * centered[j];
            }
            let mut li = ik * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    q_centered[j] = q_centered[j] + (l[li] * centered[i]);
                    li = li + 1;
                }
            }
            let mut sqnorm = ::autodiff::__private::lit::<__S>(0.0 as f64);
            for j in 0..d {
                sqnorm = sqnorm + (q_centered[j] * q_centered[j]);
            }
            main_term[ik] = alpha[ik]
                - ::autodiff::__private::lit::<__S>(0.5 as f64) * sqnorm;
        }
        slse = slse
            + <logsumexp as ::autodiff::__private::GenericCopy>::Copy::call(&main_term);
    }
    slse
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct __gmm_likelihood_generic {}
impl ::autodiff::__private::GenericCopy for __gmm_likelihood_generic {
    type Copy = __gmm_likelihood_generic;
    #[inline(always)]
    fn copy() -> __gmm_likelihood_generic {
        __gmm_likelihood_generic {}
    }
}
impl ::autodiff::__private::HasGenericCopy for __gmm_likelihood_generic {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl __gmm_likelihood_generic {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<__S: ::autodiff::__private::Float>(
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: __S,
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
        ),
    ) {
        use ::autodiff::__private::Float as _;
        let mut __tape_v9 = ::autodiff::__private::Tape::new();
        let mut __tape_li_1 = ::autodiff::__private::Tape::new();
        let mut __tape_v31 = ::autodiff::__private::Tape::new();
        let mut __tape_main_term_at_call = ::autodiff::__private::ArrayTape::new();
        let mut __tape_centered_whole = ::autodiff::__private::SnapshotTape::new();
        let mut __d_alpha = ::autodiff::__private::zeros_like(&alpha);
        let mut __d_mu = ::autodiff::__private::zeros_like(&mu);
        let mut __d_q = ::autodiff::__private::zeros_like(&q);
        let mut __d_l = ::autodiff::__private::zeros_like(&l);
        let mut __d_x = ::autodiff::__private::zeros_like(&x);
        let k = alpha.len();
        let __v0 = x.len();
        let n = __v0 / d;
        let __v1 = d - 1;
        let __v2 = d * __v1;
        let l_size = __v2 / 2;
        let __v3 = 0.0 as f64;
        let __v4 = ::autodiff::__private::lit::<__S>(__v3);
        let __v5 = k * d;
        let mut q_diag = ::std::vec![__v4; __v5];
        __tape_v9
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..k))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
            );
        for __i in 0..k {
            let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
            for __i_1 in 0..d {
                let __v6 = __i * d;
                let __v7 = __v6 + __i_1;
                let __v8 = __q_view[__i_1];
                let __v9 = __v8.exp();
                __tape_v9.push(__v9);
                q_diag[__v7] = __v9;
            }
        }
        let __v10 = ::autodiff::__private::lit::<__S>(__v3);
        let mut centered = ::std::vec![__v10; d];
        let __v11 = ::autodiff::__private::lit::<__S>(__v3);
        let mut q_centered = ::std::vec![__v11; d];
        let __v12 = ::autodiff::__private::lit::<__S>(__v3);
        let mut main_term = ::std::vec![__v12; k];
        let slse = ::autodiff::__private::lit::<__S>(__v3);
        let mut __d_main_term = ::autodiff::__private::zeros_like(&main_term);
        let mut __d_q_centered = ::autodiff::__private::zeros_like(&q_centered);
        let mut __d_centered = ::autodiff::__private::zeros_like(&centered);
        let mut __d_q_diag = ::autodiff::__private::zeros_like(&q_diag);
        let mut __d_slse_1 = d_ret;
        let mut slse_1 = slse;
        __tape_centered_whole
            .reserve(::core::iter::Iterator::size_hint(&(0..k)).0, centered.len());
        __tape_v31
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..k))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(0..d)).0),
            );
        __tape_li_1.reserve(::core::iter::Iterator::size_hint(&(0..k)).0);
        for __i_2 in 0..n {
            for __i_3 in 0..k {
                let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
                let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
                for __i_4 in 0..d {
                    let __v15 = __x_view[__i_4];
                    let __v18 = __mu_view[__i_4];
                    let __v19 = __v15 - __v18;
                    centered[__i_4] = __v19;
                }
                __tape_centered_whole.push(&centered[..]);
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __centered_view: &[_] = &centered[..d];
                for __i_5 in 0..d {
                    let __v22 = __q_diag_view[__i_5];
                    let __v23 = __centered_view[__i_5];
                    let __v24 = __v22 * __v23;
                    q_centered[__i_5] = __v24;
                }
                let li = __i_3 * l_size;
                let mut li_1 = li;
                for __i_6 in 0..d {
                    let __v25 = __i_6 + 1;
                    let mut li_2 = li_1;
                    for __i_7 in __v25..d {
                        let __v26 = q_centered[__i_7];
                        let __v27 = l[li_2];
                        let __v28 = centered[__i_6];
                        let __v29 = __v27 * __v28;
                        let __v30 = __v26 + __v29;
                        q_centered[__i_7] = __v30;
                        let li_3 = li_2 + 1;
                        li_2 = li_3;
                    }
                    li_1 = li_2;
                }
                __tape_li_1.push(li_1);
                let sqnorm = ::autodiff::__private::lit::<__S>(__v3);
                let mut sqnorm_1 = sqnorm;
                let __q_centered_view: &[_] = &q_centered[..d];
                for __i_8 in 0..d {
                    let __v31 = __q_centered_view[__i_8];
                    __tape_v31.push(__v31);
                    let __v32 = __v31 * __v31;
                    let sqnorm_2 = sqnorm_1 + __v32;
                    sqnorm_1 = sqnorm_2;
                }
                let __v33 = alpha[__i_3];
                let __v34 = 0.5 as f64;
                let __v35 = ::autodiff::__private::lit::<__S>(__v34);
                let __v36 = __v35 * sqnorm_1;
                let __v37 = __v33 - __v36;
                main_term[__i_3] = __v37;
            }
            __tape_main_term_at_call.push(&main_term[..]);
            let __v38 = <logsumexp as ::autodiff::__private::GenericCopy>::Copy::call(
                &main_term,
            );
            let slse_2 = slse_1 + __v38;
            let __main_term_at_call = __tape_main_term_at_call.pop();
            let _ = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
                .vjp_into(
                    &__main_term_at_call,
                    __d_slse_1,
                    (::core::option::Option::Some(&mut __d_main_term[..]),),
                );
            for __i_3 in (0..k).rev() {
                let __centered_stored = __tape_centered_whole.pop();
                let li_1 = __tape_li_1.pop();
                let __v34 = 0.5 as f64;
                let __v35 = ::autodiff::__private::lit::<__S>(__v34);
                let __d_v37 = __d_main_term[__i_3];
                __d_main_term[__i_3] = ::autodiff::__private::Zero::zero();
                let __d_v36 = -__d_v37;
                let __d_sqnorm_1 = __d_v36 * __v35;
                ::autodiff::__private::add_to(&mut __d_alpha[__i_3], __d_v37);
                let mut __d_sqnorm_1_1 = __d_sqnorm_1;
                let __d_q_centered_view: &mut [_] = &mut __d_q_centered[..d];
                for __i_8 in (0..d).rev() {
                    let __v31 = __tape_v31.pop();
                    let __d_v31 = __d_sqnorm_1_1 * (__v31 + __v31);
                    ::autodiff::__private::add_to(
                        &mut __d_q_centered_view[__i_8],
                        __d_v31,
                    );
                }
                let mut __counter_li_1 = li_1;
                for __i_6 in (0..d).rev() {
                    let li_2 = __counter_li_1;
                    let __v25 = __i_6 + 1;
                    let mut __counter_li_2 = li_2;
                    let mut __sum_centered = <__S as ::autodiff::__private::Zero>::zero();
                    for __i_7 in (__v25..d).rev() {
                        __counter_li_2 -= 1;
                        let li_2 = __counter_li_2;
                        let __v27 = l[li_2];
                        let __v28 = __centered_stored[__i_6];
                        let __d_increment = __d_q_centered[__i_7];
                        let __d_v27 = __d_increment * __v28;
                        let __d_v28 = __d_increment * __v27;
                        ::autodiff::__private::add_to(&mut __sum_centered, __d_v28);
                        ::autodiff::__private::add_to(&mut __d_l[li_2], __d_v27);
                    }
                    if __v25 < d {
                        ::autodiff::__private::add_to(
                            &mut __d_centered[__i_6],
                            __sum_centered,
                        );
                    }
                    __counter_li_1 = __counter_li_2;
                }
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_q_diag_view: &mut [_] = &mut __d_q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_centered_view: &mut [_] = &mut __d_centered[..d];
                for __i_5 in (0..d).rev() {
                    let __v22 = __q_diag_view[__i_5];
                    let __v23 = __centered_stored[__i_5];
                    let __d_v24 = __d_q_centered[__i_5];
                    __d_q_centered[__i_5] = ::autodiff::__private::Zero::zero();
                    let __d_v22 = __d_v24 * __v23;
                    let __d_v23 = __d_v24 * __v22;
                    ::autodiff::__private::add_to(
                        &mut __d_centered_view[__i_5],
                        __d_v23,
                    );
                    ::autodiff::__private::add_to(&mut __d_q_diag_view[__i_5], __d_v22);
                }
                let __d_mu_view: &mut [_] = &mut __d_mu[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __d_x_view: &mut [_] = &mut __d_x[(if 0 < d {
                    (__i_2 * d)
                } else {
                    0
                })..][..d];
                for __i_4 in (0..d).rev() {
                    let __d_v19 = __d_centered[__i_4];
                    __d_centered[__i_4] = ::autodiff::__private::Zero::zero();
                    let __d_v18 = -__d_v19;
                    ::autodiff::__private::add_to(&mut __d_mu_view[__i_4], __d_v18);
                    ::autodiff::__private::add_to(&mut __d_x_view[__i_4], __d_v19);
                }
            }
            slse_1 = slse_2;
        }
        let mut __tape_v9 = __tape_v9.reader();
        for __i in (0..k).rev() {
            let __d_q_view: &mut [_] = &mut __d_q[(if 0 < d {
                (__i * d)
            } else {
                0
            })..][..d];
            for __i_1 in (0..d).rev() {
                let __v9 = __tape_v9.pop();
                let __v6 = __i * d;
                let __v7 = __v6 + __i_1;
                let __d_v9 = __d_q_diag[__v7];
                __d_q_diag[__v7] = ::autodiff::__private::Zero::zero();
                let __d_v8 = __d_v9 * __v9;
                ::autodiff::__private::add_to(&mut __d_q_view[__i_1], __d_v8);
            }
        }
        (slse_1, (__d_alpha, __d_mu, __d_q, __d_l, __d_x))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<__S: ::autodiff::__private::Float>(
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        tangent: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
        ),
    ) -> (__S, __S) {
        use ::autodiff::__private::Float as _;
        let (__dot_alpha, __dot_mu, __dot_q, __dot_l, __dot_x) = tangent;
        let mut __dot_alpha = ::autodiff::__private::tangent(
            "alpha",
            __dot_alpha,
            &alpha,
        );
        let mut __dot_mu = ::autodiff::__private::tangent("mu", __dot_mu, &mu);
        let mut __dot_q = ::autodiff::__private::tangent("q", __dot_q, &q);
        let mut __dot_l = ::autodiff::__private::tangent("l", __dot_l, &l);
        let mut __dot_x = ::autodiff::__private::tangent("x", __dot_x, &x);
        let k = alpha.len();
        let __v0 = x.len();
        let n = __v0 / d;
        let __v1 = d - 1;
        let __v2 = d * __v1;
        let l_size = __v2 / 2;
        let __v3 = 0.0 as f64;
        let __v4 = ::autodiff::__private::lit::<__S>(__v3);
        let __v5 = k * d;
        let mut q_diag = ::std::vec![__v4; __v5];
        let mut __dot_q_diag = ::autodiff::__private::zeros_like(&q_diag);
        for __i in 0..k {
            let __q_view: &[_] = &q[(if 0 < d { (__i * d) } else { 0 })..][..d];
            let __dot_q_view: &[_] = &__dot_q[(if 0 < d {
                (__i * d)
            } else {
                0
            })..][..d];
            for __i_1 in 0..d {
                let __v6 = __i * d;
                let __v7 = __v6 + __i_1;
                let __v8 = __q_view[__i_1];
                let __dot_v8 = __dot_q_view[__i_1];
                let __v9 = __v8.exp();
                let __dot_v9 = ::autodiff::__private::rules::times(__dot_v8, __v9);
                q_diag[__v7] = __v9;
                __dot_q_diag[__v7] = __dot_v9;
            }
        }
        let __v10 = ::autodiff::__private::lit::<__S>(__v3);
        let mut centered = ::std::vec![__v10; d];
        let mut __dot_centered = ::autodiff::__private::zeros_like(&centered);
        let __v11 = ::autodiff::__private::lit::<__S>(__v3);
        let mut q_centered = ::std::vec![__v11; d];
        let mut __dot_q_centered = ::autodiff::__private::zeros_like(&q_centered);
        let __v12 = ::autodiff::__private::lit::<__S>(__v3);
        let mut main_term = ::std::vec![__v12; k];
        let mut __dot_main_term = ::autodiff::__private::zeros_like(&main_term);
        let slse = ::autodiff::__private::lit::<__S>(__v3);
        let mut slse_1 = slse;
        let mut __dot_slse_1 = ::autodiff::__private::zero_like(&slse_1);
        for __i_2 in 0..n {
            for __i_3 in 0..k {
                let __x_view: &[_] = &x[(if 0 < d { (__i_2 * d) } else { 0 })..][..d];
                let __mu_view: &[_] = &mu[(if 0 < d { (__i_3 * d) } else { 0 })..][..d];
                let __dot_x_view: &[_] = &__dot_x[(if 0 < d {
                    (__i_2 * d)
                } else {
                    0
                })..][..d];
                let __dot_mu_view: &[_] = &__dot_mu[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                for __i_4 in 0..d {
                    let __v13 = __i_2 * d;
                    let __v14 = __v13 + __i_4;
                    let __v15 = __x_view[__i_4];
                    let __dot_v15 = __dot_x_view[__i_4];
                    let __v16 = __i_3 * d;
                    let __v17 = __v16 + __i_4;
                    let __v18 = __mu_view[__i_4];
                    let __dot_v18 = __dot_mu_view[__i_4];
                    let __v19 = __v15 - __v18;
                    let __dot_v19 = __dot_v15 - __dot_v18;
                    centered[__i_4] = __v19;
                    __dot_centered[__i_4] = __dot_v19;
                }
                let __q_diag_view: &[_] = &q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __centered_view: &[_] = &centered[..d];
                let __dot_q_diag_view: &[_] = &__dot_q_diag[(if 0 < d {
                    (__i_3 * d)
                } else {
                    0
                })..][..d];
                let __dot_centered_view: &[_] = &__dot_centered[..d];
                for __i_5 in 0..d {
                    let __v20 = __i_3 * d;
                    let __v21 = __v20 + __i_5;
                    let __v22 = __q_diag_view[__i_5];
                    let __dot_v22 = __dot_q_diag_view[__i_5];
                    let __v23 = __centered_view[__i_5];
                    let __dot_v23 = __dot_centered_view[__i_5];
                    let __v24 = __v22 * __v23;
                    let __dot_v24 = __dot_v22 * __v23 + __dot_v23 * __v22;
                    q_centered[__i_5] = __v24;
                    __dot_q_centered[__i_5] = __dot_v24;
                }
                let li = __i_3 * l_size;
                let mut li_1 = li;
                for __i_6 in 0..d {
                    let __v25 = __i_6 + 1;
                    let mut li_2 = li_1;
                    for __i_7 in __v25..d {
                        let __v26 = q_centered[__i_7];
                        let __dot_v26 = __dot_q_centered[__i_7];
                        let __v27 = l[li_2];
                        let __dot_v27 = __dot_l[li_2];
                        let __v28 = centered[__i_6];
                        let __dot_v28 = __dot_centered[__i_6];
                        let __v29 = __v27 * __v28;
                        let __dot_v29 = __dot_v27 * __v28 + __dot_v28 * __v27;
                        let __v30 = __v26 + __v29;
                        let __dot_v30 = __dot_v26 + __dot_v29;
                        q_centered[__i_7] = __v30;
                        __dot_q_centered[__i_7] = __dot_v30;
                        let li_3 = li_2 + 1;
                        li_2 = li_3;
                    }
                    li_1 = li_2;
                }
                let sqnorm = ::autodiff::__private::lit::<__S>(__v3);
                let mut sqnorm_1 = sqnorm;
                let mut __dot_sqnorm_1 = <__S as ::autodiff::__private::Zero>::zero();
                let __q_centered_view: &[_] = &q_centered[..d];
                let __dot_q_centered_view: &[_] = &__dot_q_centered[..d];
                for __i_8 in 0..d {
                    let __v31 = __q_centered_view[__i_8];
                    let __dot_v31 = __dot_q_centered_view[__i_8];
                    let __v32 = __v31 * __v31;
                    let __dot_v32 = __dot_v31 * (__v31 + __v31);
                    let sqnorm_2 = sqnorm_1 + __v32;
                    let __dot_sqnorm_2 = __dot_sqnorm_1 + __dot_v32;
                    (sqnorm_1, __dot_sqnorm_1) = (sqnorm_2, __dot_sqnorm_2);
                }
                let __v33 = alpha[__i_3];
                let __dot_v33 = __dot_alpha[__i_3];
                let __v34 = 0.5 as f64;
                let __v35 = ::autodiff::__private::lit::<__S>(__v34);
                let __v36 = __v35 * sqnorm_1;
                let __dot_v36 = __dot_sqnorm_1 * __v35;
                let __v37 = __v33 - __v36;
                let __dot_v37 = __dot_v33 - __dot_v36;
                main_term[__i_3] = __v37;
                __dot_main_term[__i_3] = __dot_v37;
            }
            let (__v38, __dot_v38) = <logsumexp as ::autodiff::__private::GenericCopy>::copy()
                .jvp(
                    &main_term,
                    (
                        ::core::convert::Into::into(
                            ::core::clone::Clone::clone(&__dot_main_term),
                        ),
                    ),
                );
            let slse_2 = slse_1 + __v38;
            let __dot_slse_2 = __dot_slse_1 + __dot_v38;
            (slse_1, __dot_slse_1) = (slse_2, __dot_slse_2);
        }
        (slse_1, __dot_slse_1)
    }
    #[inline]
    pub fn call<__S: ::autodiff::__private::Float>(
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
    ) -> __S {
        __gmm_likelihood_generic(alpha, mu, q, l, x, d)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    pub fn call_on<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
    ) -> __S {
        __gmm_likelihood_generic(alpha, mu, q, l, x, d)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: __S,
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            (),
        ),
    ) {
        let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
        (
            value,
            (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4, ()),
        )
    }
    #[inline]
    pub fn jvp<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        tangents: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            (),
        ),
    ) -> (__S, __S) {
        let (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4, _) = tangents;
        Self::__jvp_all(
            alpha,
            mu,
            q,
            l,
            x,
            d,
            (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4),
        )
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: ::core::option::Option<__S>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<__S>>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (
        __S,
        (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            (),
        ),
    ) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4, __after_5) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <__S as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
        (
            value,
            (
                ::autodiff::__private::PassOn::pass_on(__after_0, __gradient_0),
                ::autodiff::__private::PassOn::pass_on(__after_1, __gradient_1),
                ::autodiff::__private::PassOn::pass_on(__after_2, __gradient_2),
                ::autodiff::__private::PassOn::pass_on(__after_3, __gradient_3),
                ::autodiff::__private::PassOn::pass_on(__after_4, __gradient_4),
                ::autodiff::__private::PassOn::pass_on(__after_5, ()),
            ),
        )
    }
    #[inline]
    #[allow(unused_variables)]
    pub fn jvp_out<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        tangents: (
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            ::std::vec::Vec<__S>,
            (),
        ),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (__S, __S) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4, __after_5) = d_after;
        let (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4, _) = tangents;
        Self::__jvp_all(
            alpha,
            mu,
            q,
            l,
            x,
            d,
            (__tangent_0, __tangent_1, __tangent_2, __tangent_3, __tangent_4),
        )
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into<__S: ::autodiff::__private::Float>(
        self,
        alpha: &[__S],
        mu: &[__S],
        q: &[__S],
        l: &[__S],
        x: &[__S],
        d: usize,
        d_ret: __S,
        grads: (
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            ::core::option::Option<&mut [__S]>,
            (),
        ),
    ) -> __S {
        let (__slot_0, __slot_1, __slot_2, __slot_3, __slot_4, __slot_5) = grads;
        let (value, gradient) = Self::__vjp_all(alpha, mu, q, l, x, d, d_ret);
        let (__gradient_0, __gradient_1, __gradient_2, __gradient_3, __gradient_4) = gradient;
        ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
        ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
        ::autodiff::__private::accumulate_into_slot(__slot_2, &__gradient_2[..]);
        ::autodiff::__private::accumulate_into_slot(__slot_3, &__gradient_3[..]);
        ::autodiff::__private::accumulate_into_slot(__slot_4, &__gradient_4[..]);
        value
    }
}
