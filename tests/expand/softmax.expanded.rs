use autodiff::{differentiable, Float};
pub fn softmax_loss<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
) -> T {
    let m = labels.len();
    let mut z = vec![T::zero(); k];
    let mut total = T::zero();
    for j in 0..m {
        for c in 0..k {
            let mut s = T::zero();
            for i in 0..d {
                s = s + w[c * d + i] * data[j * d + i];
            }
            z[c] = s;
        }
        let mut zmax = z[0];
        for c in 1..k {
            zmax = zmax.max(z[c]);
        }
        let mut sum = T::zero();
        for c in 0..k {
            sum = sum + (z[c] - zmax).exp();
        }
        total = total + sum.ln() + zmax - z[labels[j]];
    }
    total / T::from(m).unwrap()
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn softmax_loss_grad<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
) -> (T, ::std::vec::Vec<T>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __softmax_loss_vjp_into(
        w,
        data,
        labels,
        d,
        k,
        <T as ::autodiff::__private::One>::one(),
        &mut __grad_w,
    );
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn softmax_loss_grad_into<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
    grad: &mut [T],
) -> T {
    let __grad_w = grad;
    ::autodiff::__private::clear(&mut __grad_w[..]);
    __softmax_loss_vjp_into(
        w,
        data,
        labels,
        d,
        k,
        <T as ::autodiff::__private::One>::one(),
        __grad_w,
    )
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn __softmax_loss_vjp_into<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
    d_ret: T,
    grad: &mut [T],
) -> T {
    let __grad_w = grad;
    let mut __tape_zmax_1 = ::autodiff::__private::Tape::new();
    let mut __tape_v11 = ::autodiff::__private::Tape::new();
    let mut __tape_sum_1 = ::autodiff::__private::Tape::new();
    let mut __tape_z_whole = ::autodiff::__private::SnapshotTape::new();
    let mut __d_w = ::autodiff::__private::gradient_buffer("w", __grad_w, &w);
    let m = labels.len();
    let __v0 = T::zero();
    let mut z = ::std::vec![__v0; k];
    let total = T::zero();
    let mut total_1 = total;
    __tape_z_whole.reserve(::core::iter::Iterator::size_hint(&(0..m)).0, z.len());
    __tape_zmax_1
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..m))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(1..k)).0),
        );
    __tape_v11
        .reserve(
            ::core::iter::Iterator::size_hint(&(0..m))
                .0
                .saturating_mul(::core::iter::Iterator::size_hint(&(0..k)).0),
        );
    __tape_sum_1.reserve(::core::iter::Iterator::size_hint(&(0..m)).0);
    for __i in 0..m {
        for __i_1 in 0..k {
            let s = T::zero();
            let mut s_1 = s;
            let __w_view: &[_] = &w[(if 0 < d { (__i_1 * d) } else { 0 })..][..d];
            let __data_view: &[_] = &data[(if 0 < d { (__i * d) } else { 0 })..][..d];
            for __i_2 in 0..d {
                let __v3 = __w_view[__i_2];
                let __v6 = __data_view[__i_2];
                let __v7 = __v3 * __v6;
                let s_2 = s_1 + __v7;
                s_1 = s_2;
            }
            z[__i_1] = s_1;
        }
        __tape_z_whole.push(&z[..]);
        let zmax = z[0];
        let mut zmax_1 = zmax;
        let __z_view: &[_] = &z[(if 1 < k {
            1
        } else {
            0
        })..][..::core::primitive::usize::saturating_sub(k, 1)];
        for __i_3 in 1..k {
            __tape_zmax_1.push(zmax_1);
            let __v8 = __z_view[__i_3 - 1];
            let zmax_2 = zmax_1.max(__v8);
            zmax_1 = zmax_2;
        }
        let sum = T::zero();
        let mut sum_1 = sum;
        let __z_view_1: &[_] = &z[..k];
        for __i_4 in 0..k {
            let __v9 = __z_view_1[__i_4];
            let __v10 = __v9 - zmax_1;
            let __v11 = __v10.exp();
            __tape_v11.push(__v11);
            let sum_2 = sum_1 + __v11;
            sum_1 = sum_2;
        }
        __tape_sum_1.push(sum_1);
        let __v12 = sum_1.ln();
        let __v13 = total_1 + __v12;
        let __v14 = __v13 + zmax_1;
        let __v15 = labels[__i];
        let __v16 = z[__v15];
        let total_2 = __v14 - __v16;
        total_1 = total_2;
    }
    let __v17 = T::from(m);
    let __v18 = __v17.unwrap();
    let __v19 = total_1 / __v18;
    let mut __d_z = ::autodiff::__private::zeros_like(&z);
    let mut __tape_zmax_1 = __tape_zmax_1.reader();
    let mut __tape_v11 = __tape_v11.reader();
    let mut __tape_sum_1 = __tape_sum_1.reader();
    let __d_total_1 = d_ret / __v18;
    let mut __d_total_1_1 = __d_total_1;
    for __i in (0..m).rev() {
        let __z_stored = __tape_z_whole.pop();
        let sum_1 = __tape_sum_1.pop();
        let __v15 = labels[__i];
        let __d_v16 = -__d_total_1_1;
        ::autodiff::__private::add_to(&mut __d_z[__v15], __d_v16);
        let __d_sum_1 = __d_total_1_1 / sum_1;
        let mut __d_sum_1_1 = __d_sum_1;
        let mut __d_zmax_1 = __d_total_1_1;
        let __d_z_view: &mut [_] = &mut __d_z[..k];
        for __i_4 in (0..k).rev() {
            let __v11 = __tape_v11.pop();
            let __d_v10 = __d_sum_1_1 * __v11;
            let __d_zmax_1_1 = __d_zmax_1 - __d_v10;
            ::autodiff::__private::add_to(&mut __d_z_view[__i_4], __d_v10);
            __d_zmax_1 = __d_zmax_1_1;
        }
        let mut __d_zmax_1_2 = __d_zmax_1;
        let __d_z_view_1: &mut [_] = &mut __d_z[(if 1 < k {
            1
        } else {
            0
        })..][..::core::primitive::usize::saturating_sub(k, 1)];
        for __i_3 in (1..k).rev() {
            let zmax_1 = __tape_zmax_1.pop();
            let __v8 = __z_stored[__i_3];
            let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                zmax_1,
                __v8,
            );
            let __d_zmax_1_3 = __d_zmax_1_2 * __partial_max;
            let __d_v8 = __d_zmax_1_2 * __partial_max_1;
            ::autodiff::__private::add_to(&mut __d_z_view_1[__i_3 - 1], __d_v8);
            __d_zmax_1_2 = __d_zmax_1_3;
        }
        ::autodiff::__private::add_to(&mut __d_z[0], __d_zmax_1_2);
        for __i_1 in (0..k).rev() {
            let __d_s_1 = __d_z[__i_1];
            __d_z[__i_1] = ::autodiff::__private::Zero::zero();
            let mut __d_s_1_1 = __d_s_1;
            let __data_view: &[_] = &data[(if 0 < d { (__i * d) } else { 0 })..][..d];
            let __d_w_view: &mut [_] = &mut __d_w[(if 0 < d {
                (__i_1 * d)
            } else {
                0
            })..][..d];
            for __i_2 in 0..d {
                let __v6 = __data_view[__i_2];
                let __d_v3 = __d_s_1_1 * __v6;
                ::autodiff::__private::add_to(&mut __d_w_view[__i_2], __d_v3);
            }
        }
    }
    __v19
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn softmax_loss_vjp<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
    d_ret: T,
) -> (T, ::std::vec::Vec<T>) {
    let mut __grad_w = ::autodiff::__private::zeros_like(&w[..]);
    let value = __softmax_loss_vjp_into(w, data, labels, d, k, d_ret, &mut __grad_w);
    (value, __grad_w)
}
#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
#[inline]
pub fn softmax_loss_jvp<T: Float>(
    w: &[T],
    data: &[T],
    labels: &[usize],
    d: usize,
    k: usize,
    tangent: ::std::vec::Vec<T>,
) -> (T, T) {
    let mut __dot_w = ::autodiff::__private::tangent("w", tangent, &w);
    let m = labels.len();
    let __v0 = T::zero();
    let mut z = ::std::vec![__v0; k];
    let mut __dot_z = ::autodiff::__private::zeros_like(&z);
    let total = T::zero();
    let mut total_1 = total;
    let mut __dot_total_1 = <T as ::autodiff::__private::Zero>::zero();
    for __i in 0..m {
        for __i_1 in 0..k {
            let s = T::zero();
            let mut s_1 = s;
            let mut __dot_s_1 = <T as ::autodiff::__private::Zero>::zero();
            let __w_view: &[_] = &w[(if 0 < d { (__i_1 * d) } else { 0 })..][..d];
            let __data_view: &[_] = &data[(if 0 < d { (__i * d) } else { 0 })..][..d];
            let __dot_w_view: &[_] = &__dot_w[(if 0 < d {
                (__i_1 * d)
            } else {
                0
            })..][..d];
            for __i_2 in 0..d {
                let __v1 = __i_1 * d;
                let __v2 = __v1 + __i_2;
                let __v3 = __w_view[__i_2];
                let __dot_v3 = __dot_w_view[__i_2];
                let __v4 = __i * d;
                let __v5 = __v4 + __i_2;
                let __v6 = __data_view[__i_2];
                let __v7 = __v3 * __v6;
                let __dot_v7 = __dot_v3 * __v6;
                let s_2 = s_1 + __v7;
                let __dot_s_2 = __dot_s_1 + __dot_v7;
                (s_1, __dot_s_1) = (s_2, __dot_s_2);
            }
            z[__i_1] = s_1;
            __dot_z[__i_1] = __dot_s_1;
        }
        let zmax = z[0];
        let __dot_zmax = __dot_z[0];
        let mut zmax_1 = zmax;
        let mut __dot_zmax_1 = __dot_zmax;
        let __z_view: &[_] = &z[(if 1 < k {
            1
        } else {
            0
        })..][..::core::primitive::usize::saturating_sub(k, 1)];
        let __dot_z_view: &[_] = &__dot_z[(if 1 < k {
            1
        } else {
            0
        })..][..::core::primitive::usize::saturating_sub(k, 1)];
        for __i_3 in 1..k {
            let __v8 = __z_view[__i_3 - 1];
            let __dot_v8 = __dot_z_view[__i_3 - 1];
            let zmax_2 = zmax_1.max(__v8);
            let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                zmax_1,
                __v8,
            );
            let __dot_zmax_2 = __dot_zmax_1 * __partial_max + __dot_v8 * __partial_max_1;
            (zmax_1, __dot_zmax_1) = (zmax_2, __dot_zmax_2);
        }
        let sum = T::zero();
        let mut sum_1 = sum;
        let mut __dot_sum_1 = <T as ::autodiff::__private::Zero>::zero();
        let __z_view_1: &[_] = &z[..k];
        let __dot_z_view_1: &[_] = &__dot_z[..k];
        for __i_4 in 0..k {
            let __v9 = __z_view_1[__i_4];
            let __dot_v9 = __dot_z_view_1[__i_4];
            let __v10 = __v9 - zmax_1;
            let __dot_v10 = __dot_v9 - __dot_zmax_1;
            let __v11 = __v10.exp();
            let __dot_v11 = ::autodiff::__private::rules::times(__dot_v10, __v11);
            let sum_2 = sum_1 + __v11;
            let __dot_sum_2 = __dot_sum_1 + __dot_v11;
            (sum_1, __dot_sum_1) = (sum_2, __dot_sum_2);
        }
        let __v12 = sum_1.ln();
        let __dot_v12 = ::autodiff::__private::rules::over(__dot_sum_1, sum_1);
        let __v13 = total_1 + __v12;
        let __dot_v13 = __dot_total_1 + __dot_v12;
        let __v14 = __v13 + zmax_1;
        let __dot_v14 = __dot_v13 + __dot_zmax_1;
        let __v15 = labels[__i];
        let __v16 = z[__v15];
        let __dot_v16 = __dot_z[__v15];
        let total_2 = __v14 - __v16;
        let __dot_total_2 = __dot_v14 - __dot_v16;
        (total_1, __dot_total_1) = (total_2, __dot_total_2);
    }
    let __v17 = T::from(m);
    let __v18 = __v17.unwrap();
    let __v19 = total_1 / __v18;
    let __dot_v19 = __dot_total_1 / __v18;
    (__v19, __dot_v19)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct softmax_loss {}
impl ::autodiff::__private::GenericCopy for softmax_loss {
    type Copy = softmax_loss;
    #[inline(always)]
    fn copy() -> softmax_loss {
        softmax_loss {}
    }
}
impl ::autodiff::__private::HasGenericCopy for softmax_loss {}
#[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
impl softmax_loss {
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __vjp_all<T: Float>(
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: T,
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>)) {
        let mut __tape_zmax_1 = ::autodiff::__private::Tape::new();
        let mut __tape_v11 = ::autodiff::__private::Tape::new();
        let mut __tape_sum_1 = ::autodiff::__private::Tape::new();
        let mut __tape_z_whole = ::autodiff::__private::SnapshotTape::new();
        let mut __d_w = ::autodiff::__private::zeros_like(&w);
        let mut __d_data = ::autodiff::__private::zeros_like(&data);
        let m = labels.len();
        let __v0 = T::zero();
        let mut z = ::std::vec![__v0; k];
        let total = T::zero();
        let mut total_1 = total;
        __tape_z_whole.reserve(::core::iter::Iterator::size_hint(&(0..m)).0, z.len());
        __tape_zmax_1
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..m))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(1..k)).0),
            );
        __tape_v11
            .reserve(
                ::core::iter::Iterator::size_hint(&(0..m))
                    .0
                    .saturating_mul(::core::iter::Iterator::size_hint(&(0..k)).0),
            );
        __tape_sum_1.reserve(::core::iter::Iterator::size_hint(&(0..m)).0);
        for __i in 0..m {
            for __i_1 in 0..k {
                let s = T::zero();
                let mut s_1 = s;
                let __w_view: &[_] = &w[(if 0 < d { (__i_1 * d) } else { 0 })..][..d];
                let __data_view: &[_] = &data[(if 0 < d {
                    (__i * d)
                } else {
                    0
                })..][..d];
                for __i_2 in 0..d {
                    let __v3 = __w_view[__i_2];
                    let __v6 = __data_view[__i_2];
                    let __v7 = __v3 * __v6;
                    let s_2 = s_1 + __v7;
                    s_1 = s_2;
                }
                z[__i_1] = s_1;
            }
            __tape_z_whole.push(&z[..]);
            let zmax = z[0];
            let mut zmax_1 = zmax;
            let __z_view: &[_] = &z[(if 1 < k {
                1
            } else {
                0
            })..][..::core::primitive::usize::saturating_sub(k, 1)];
            for __i_3 in 1..k {
                __tape_zmax_1.push(zmax_1);
                let __v8 = __z_view[__i_3 - 1];
                let zmax_2 = zmax_1.max(__v8);
                zmax_1 = zmax_2;
            }
            let sum = T::zero();
            let mut sum_1 = sum;
            let __z_view_1: &[_] = &z[..k];
            for __i_4 in 0..k {
                let __v9 = __z_view_1[__i_4];
                let __v10 = __v9 - zmax_1;
                let __v11 = __v10.exp();
                __tape_v11.push(__v11);
                let sum_2 = sum_1 + __v11;
                sum_1 = sum_2;
            }
            __tape_sum_1.push(sum_1);
            let __v12 = sum_1.ln();
            let __v13 = total_1 + __v12;
            let __v14 = __v13 + zmax_1;
            let __v15 = labels[__i];
            let __v16 = z[__v15];
            let total_2 = __v14 - __v16;
            total_1 = total_2;
        }
        let __v17 = T::from(m);
        let __v18 = __v17.unwrap();
        let __v19 = total_1 / __v18;
        let mut __d_z = ::autodiff::__private::zeros_like(&z);
        let mut __tape_zmax_1 = __tape_zmax_1.reader();
        let mut __tape_v11 = __tape_v11.reader();
        let mut __tape_sum_1 = __tape_sum_1.reader();
        let __d_total_1 = d_ret / __v18;
        let mut __d_total_1_1 = __d_total_1;
        for __i in (0..m).rev() {
            let __z_stored = __tape_z_whole.pop();
            let sum_1 = __tape_sum_1.pop();
            let __v15 = labels[__i];
            let __d_v16 = -__d_total_1_1;
            ::autodiff::__private::add_to(&mut __d_z[__v15], __d_v16);
            let __d_sum_1 = __d_total_1_1 / sum_1;
            let mut __d_sum_1_1 = __d_sum_1;
            let mut __d_zmax_1 = __d_total_1_1;
            let __d_z_view: &mut [_] = &mut __d_z[..k];
            for __i_4 in (0..k).rev() {
                let __v11 = __tape_v11.pop();
                let __d_v10 = __d_sum_1_1 * __v11;
                let __d_zmax_1_1 = __d_zmax_1 - __d_v10;
                ::autodiff::__private::add_to(&mut __d_z_view[__i_4], __d_v10);
                __d_zmax_1 = __d_zmax_1_1;
            }
            let mut __d_zmax_1_2 = __d_zmax_1;
            let __d_z_view_1: &mut [_] = &mut __d_z[(if 1 < k {
                1
            } else {
                0
            })..][..::core::primitive::usize::saturating_sub(k, 1)];
            for __i_3 in (1..k).rev() {
                let zmax_1 = __tape_zmax_1.pop();
                let __v8 = __z_stored[__i_3];
                let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                    zmax_1,
                    __v8,
                );
                let __d_zmax_1_3 = __d_zmax_1_2 * __partial_max;
                let __d_v8 = __d_zmax_1_2 * __partial_max_1;
                ::autodiff::__private::add_to(&mut __d_z_view_1[__i_3 - 1], __d_v8);
                __d_zmax_1_2 = __d_zmax_1_3;
            }
            ::autodiff::__private::add_to(&mut __d_z[0], __d_zmax_1_2);
            for __i_1 in (0..k).rev() {
                let __d_s_1 = __d_z[__i_1];
                __d_z[__i_1] = ::autodiff::__private::Zero::zero();
                let mut __d_s_1_1 = __d_s_1;
                let __w_view: &[_] = &w[(if 0 < d { (__i_1 * d) } else { 0 })..][..d];
                let __data_view: &[_] = &data[(if 0 < d {
                    (__i * d)
                } else {
                    0
                })..][..d];
                let __d_w_view: &mut [_] = &mut __d_w[(if 0 < d {
                    (__i_1 * d)
                } else {
                    0
                })..][..d];
                let __d_data_view: &mut [_] = &mut __d_data[(if 0 < d {
                    (__i * d)
                } else {
                    0
                })..][..d];
                for __i_2 in 0..d {
                    let __v3 = __w_view[__i_2];
                    let __v6 = __data_view[__i_2];
                    let __d_v3 = __d_s_1_1 * __v6;
                    let __d_v6 = __d_s_1_1 * __v3;
                    ::autodiff::__private::add_to(&mut __d_data_view[__i_2], __d_v6);
                    ::autodiff::__private::add_to(&mut __d_w_view[__i_2], __d_v3);
                }
            }
        }
        (__v19, (__d_w, __d_data))
    }
    #[allow(
        unused,
        clippy::pedantic,
        clippy::nursery,
        clippy::too_many_arguments,
        clippy::ptr_arg
    )]
    fn __jvp_all<T: Float>(
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        tangent: (::std::vec::Vec<T>, ::std::vec::Vec<T>),
    ) -> (T, T) {
        let (__dot_w, __dot_data) = tangent;
        let mut __dot_w = ::autodiff::__private::tangent("w", __dot_w, &w);
        let mut __dot_data = ::autodiff::__private::tangent("data", __dot_data, &data);
        let m = labels.len();
        let __v0 = T::zero();
        let mut z = ::std::vec![__v0; k];
        let mut __dot_z = ::autodiff::__private::zeros_like(&z);
        let total = T::zero();
        let mut total_1 = total;
        let mut __dot_total_1 = <T as ::autodiff::__private::Zero>::zero();
        for __i in 0..m {
            for __i_1 in 0..k {
                let s = T::zero();
                let mut s_1 = s;
                let mut __dot_s_1 = <T as ::autodiff::__private::Zero>::zero();
                let __w_view: &[_] = &w[(if 0 < d { (__i_1 * d) } else { 0 })..][..d];
                let __data_view: &[_] = &data[(if 0 < d {
                    (__i * d)
                } else {
                    0
                })..][..d];
                let __dot_w_view: &[_] = &__dot_w[(if 0 < d {
                    (__i_1 * d)
                } else {
                    0
                })..][..d];
                let __dot_data_view: &[_] = &__dot_data[(if 0 < d {
                    (__i * d)
                } else {
                    0
                })..][..d];
                for __i_2 in 0..d {
                    let __v1 = __i_1 * d;
                    let __v2 = __v1 + __i_2;
                    let __v3 = __w_view[__i_2];
                    let __dot_v3 = __dot_w_view[__i_2];
                    let __v4 = __i * d;
                    let __v5 = __v4 + __i_2;
                    let __v6 = __data_view[__i_2];
                    let __dot_v6 = __dot_data_view[__i_2];
                    let __v7 = __v3 * __v6;
                    let __dot_v7 = __dot_v3 * __v6 + __dot_v6 * __v3;
                    let s_2 = s_1 + __v7;
                    let __dot_s_2 = __dot_s_1 + __dot_v7;
                    (s_1, __dot_s_1) = (s_2, __dot_s_2);
                }
                z[__i_1] = s_1;
                __dot_z[__i_1] = __dot_s_1;
            }
            let zmax = z[0];
            let __dot_zmax = __dot_z[0];
            let mut zmax_1 = zmax;
            let mut __dot_zmax_1 = __dot_zmax;
            let __z_view: &[_] = &z[(if 1 < k {
                1
            } else {
                0
            })..][..::core::primitive::usize::saturating_sub(k, 1)];
            let __dot_z_view: &[_] = &__dot_z[(if 1 < k {
                1
            } else {
                0
            })..][..::core::primitive::usize::saturating_sub(k, 1)];
            for __i_3 in 1..k {
                let __v8 = __z_view[__i_3 - 1];
                let __dot_v8 = __dot_z_view[__i_3 - 1];
                let zmax_2 = zmax_1.max(__v8);
                let (__partial_max, __partial_max_1) = ::autodiff::__private::rules::max(
                    zmax_1,
                    __v8,
                );
                let __dot_zmax_2 = __dot_zmax_1 * __partial_max
                    + __dot_v8 * __partial_max_1;
                (zmax_1, __dot_zmax_1) = (zmax_2, __dot_zmax_2);
            }
            let sum = T::zero();
            let mut sum_1 = sum;
            let mut __dot_sum_1 = <T as ::autodiff::__private::Zero>::zero();
            let __z_view_1: &[_] = &z[..k];
            let __dot_z_view_1: &[_] = &__dot_z[..k];
            for __i_4 in 0..k {
                let __v9 = __z_view_1[__i_4];
                let __dot_v9 = __dot_z_view_1[__i_4];
                let __v10 = __v9 - zmax_1;
                let __dot_v10 = __dot_v9 - __dot_zmax_1;
                let __v11 = __v10.exp();
                let __dot_v11 = ::autodiff::__private::rules::times(__dot_v10, __v11);
                let sum_2 = sum_1 + __v11;
                let __dot_sum_2 = __dot_sum_1 + __dot_v11;
                (sum_1, __dot_sum_1) = (sum_2, __dot_sum_2);
            }
            let __v12 = sum_1.ln();
            let __dot_v12 = ::autodiff::__private::rules::over(__dot_sum_1, sum_1);
            let __v13 = total_1 + __v12;
            let __dot_v13 = __dot_total_1 + __dot_v12;
            let __v14 = __v13 + zmax_1;
            let __dot_v14 = __dot_v13 + __dot_zmax_1;
            let __v15 = labels[__i];
            let __v16 = z[__v15];
            let __dot_v16 = __dot_z[__v15];
            let total_2 = __v14 - __v16;
            let __dot_total_2 = __dot_v14 - __dot_v16;
            (total_1, __dot_total_1) = (total_2, __dot_total_2);
        }
        let __v17 = T::from(m);
        let __v18 = __v17.unwrap();
        let __v19 = total_1 / __v18;
        let __dot_v19 = __dot_total_1 / __v18;
        (__v19, __dot_v19)
    }
    #[inline]
    pub fn call<T: Float>(
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
    ) -> T {
        softmax_loss(w, data, labels, d, k)
    }
    /// `call`, on the companion found for a call by a path (`__private::copy_of`).
    #[inline(always)]
    pub fn call_on<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
    ) -> T {
        softmax_loss(w, data, labels, d, k)
    }
    #[inline]
    #[allow(clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: T,
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>, (), (), ())) {
        let (value, gradient) = Self::__vjp_all(w, data, labels, d, k, d_ret);
        let (__gradient_0, __gradient_1) = gradient;
        (value, (__gradient_0, __gradient_1, (), (), ()))
    }
    #[inline]
    pub fn jvp<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        tangents: (::std::vec::Vec<T>, ::std::vec::Vec<T>, (), (), ()),
    ) -> (T, T) {
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        Self::__jvp_all(w, data, labels, d, k, (__tangent_0, __tangent_1))
    }
    #[inline]
    #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_out<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: ::core::option::Option<T>,
        d_after: (
            impl ::autodiff::__private::PassOn<::std::vec::Vec<T>>,
            impl ::autodiff::__private::PassOn<::std::vec::Vec<T>>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
            impl ::autodiff::__private::PassOn<()>,
        ),
    ) -> (T, (::std::vec::Vec<T>, ::std::vec::Vec<T>, (), (), ())) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let d_ret = match d_ret {
            ::core::option::Option::Some(d_ret) => d_ret,
            ::core::option::Option::None => <T as ::autodiff::__private::Zero>::zero(),
        };
        let (value, gradient) = Self::__vjp_all(w, data, labels, d, k, d_ret);
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
    pub fn jvp_out<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        tangents: (::std::vec::Vec<T>, ::std::vec::Vec<T>, (), (), ()),
        d_after: (
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
            impl ::core::marker::Sized,
        ),
    ) -> (T, T) {
        let (__after_0, __after_1, __after_2, __after_3, __after_4) = d_after;
        let (__tangent_0, __tangent_1, _, _, _) = tangents;
        Self::__jvp_all(w, data, labels, d, k, (__tangent_0, __tangent_1))
    }
    #[inline(always)]
    #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
    pub fn vjp_into<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: T,
        grads: (
            ::core::option::Option<&mut [T]>,
            ::core::option::Option<&mut [T]>,
            (),
            (),
            (),
        ),
    ) -> T {
        let (__slot_0, __slot_1, __slot_2, __slot_3, __slot_4) = grads;
        let value = if __slot_1.is_none() {
            let mut __scratch_0 = ::autodiff::__private::Scratch::new();
            let __buffer_0 = ::autodiff::__private::slot_or_scratch(
                __slot_0,
                &mut __scratch_0,
                w.len(),
            );
            let value = __softmax_loss_vjp_into(
                w,
                data,
                labels,
                d,
                k,
                d_ret,
                __buffer_0,
            );
            value
        } else {
            let (value, gradient) = Self::__vjp_all(w, data, labels, d, k, d_ret);
            let (__gradient_0, __gradient_1) = gradient;
            ::autodiff::__private::accumulate_into_slot(__slot_0, &__gradient_0[..]);
            ::autodiff::__private::accumulate_into_slot(__slot_1, &__gradient_1[..]);
            value
        };
        value
    }
    #[inline(always)]
    pub fn cotangent_linear(&self) -> bool {
        true
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct softmax_loss_grad {}
impl ::autodiff::__private::GenericCopy for softmax_loss_grad {
    type Copy = softmax_loss_grad;
    #[inline(always)]
    fn copy() -> softmax_loss_grad {
        softmax_loss_grad {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl softmax_loss_grad {
    #[inline]
    pub fn call<T: Float>(
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
    ) -> (T, ::std::vec::Vec<T>) {
        let (__value, (__slot_0, _, _, _, _)) = <softmax_loss as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, data, labels, d, k, <T as ::autodiff::__private::One>::one());
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
    ) -> (T, ::std::vec::Vec<T>) {
        Self::call(w, data, labels, d, k)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct softmax_loss_vjp {}
impl ::autodiff::__private::GenericCopy for softmax_loss_vjp {
    type Copy = softmax_loss_vjp;
    #[inline(always)]
    fn copy() -> softmax_loss_vjp {
        softmax_loss_vjp {}
    }
}
#[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
impl softmax_loss_vjp {
    #[inline]
    pub fn call<T: Float>(
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: T,
    ) -> (T, ::std::vec::Vec<T>) {
        let (__value, (__slot_0, _, _, _, _)) = <softmax_loss as ::autodiff::__private::GenericCopy>::copy()
            .vjp(w, data, labels, d, k, d_ret);
        (__value, __slot_0)
    }
    #[inline(always)]
    pub fn call_on<T: Float>(
        self,
        w: &[T],
        data: &[T],
        labels: &[usize],
        d: usize,
        k: usize,
        d_ret: T,
    ) -> (T, ::std::vec::Vec<T>) {
        Self::call(w, data, labels, d, k, d_ret)
    }
    #[inline(always)]
    pub fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
        ::autodiff::__private::NoDerivative
    }
}
