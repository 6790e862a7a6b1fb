//! What `f_vjp` and `f_jvp` take for a float output parameter (`e: &mut f64`): its cotangent and its
//! tangent buffer, written either as a float (`d_e: f64`, `&mut f64`) or, as `../API.md` writes every
//! output's (`d_out: &[T]`, `d_out: &mut [T]`), as a slice of one element.

use num_traits::Float;

/// The cotangent of a float output parameter (`e: &mut T`) that `f_vjp` takes: the float itself
/// (`1.0`), or a slice, array or `Vec` holding that one float (`&[1.0]`, `&v`), as for a slice output.
///
/// ```
/// use autodiff_core::FloatCotangent;
///
/// fn seed(d: impl FloatCotangent<f64>) -> f64 {
///     d.float_cotangent("e")
/// }
/// assert_eq!(seed(2.0), 2.0);
/// assert_eq!(seed(&[3.0]), 3.0);
/// assert_eq!(seed(&vec![4.0]), 4.0);
/// ```
pub trait FloatCotangent<T> {
    /// The float, `label` naming the output in the panic of a slice of another length than one.
    ///
    /// # Panics
    ///
    /// If a slice, array or `Vec` does not hold exactly one element.
    fn float_cotangent(self, label: &str) -> T;
}

/// The tangent buffer of a float output parameter (`e: &mut T`) that `f_jvp` writes: the float
/// (`&mut de`), or a slice, array or `Vec` of one element (`&mut [0.0]`), as for a slice output.
///
/// ```
/// use autodiff_core::FloatTangentBuffer;
///
/// fn write(d: impl FloatTangentBuffer<f64>) {
///     *d.float_tangent_buffer("e") = 2.0;
/// }
/// let (mut de, mut one) = (0.0, [0.0]);
/// write(&mut de);
/// write(&mut one);
/// assert_eq!((de, one), (2.0, [2.0]));
/// ```
pub trait FloatTangentBuffer<T> {
    /// The float to write, `label` naming the output in the panic of a slice of another length than one.
    ///
    /// # Panics
    ///
    /// If a slice, array or `Vec` does not hold exactly one element.
    fn float_tangent_buffer<'b>(self, label: &str) -> &'b mut T
    where
        Self: 'b;
}

fn check_one(what: &str, label: &str, len: usize) {
    if len != 1 {
        panic!(
            "autodiff: the {what} of the float output `{label}` must be a float or hold one element, \
             but it has {len}"
        );
    }
}

impl<T: Float> FloatCotangent<T> for T {
    #[inline(always)]
    fn float_cotangent(self, _label: &str) -> T {
        self
    }
}

impl<T: Copy> FloatCotangent<T> for &[T] {
    #[inline]
    fn float_cotangent(self, label: &str) -> T {
        check_one("cotangent", label, self.len());
        self[0]
    }
}

impl<T: Copy, const N: usize> FloatCotangent<T> for &[T; N] {
    #[inline]
    fn float_cotangent(self, label: &str) -> T {
        check_one("cotangent", label, N);
        self[0]
    }
}

impl<T: Copy> FloatCotangent<T> for &Vec<T> {
    #[inline]
    fn float_cotangent(self, label: &str) -> T {
        check_one("cotangent", label, self.len());
        self[0]
    }
}

impl<T: Float> FloatTangentBuffer<T> for &mut T {
    #[inline(always)]
    fn float_tangent_buffer<'b>(self, _label: &str) -> &'b mut T
    where
        Self: 'b,
    {
        self
    }
}

impl<T> FloatTangentBuffer<T> for &mut [T] {
    #[inline]
    fn float_tangent_buffer<'b>(self, label: &str) -> &'b mut T
    where
        Self: 'b,
    {
        check_one("tangent buffer", label, self.len());
        &mut self[0]
    }
}

impl<T, const N: usize> FloatTangentBuffer<T> for &mut [T; N] {
    #[inline]
    fn float_tangent_buffer<'b>(self, label: &str) -> &'b mut T
    where
        Self: 'b,
    {
        check_one("tangent buffer", label, N);
        &mut self[0]
    }
}

impl<T> FloatTangentBuffer<T> for &mut Vec<T> {
    #[inline]
    fn float_tangent_buffer<'b>(self, label: &str) -> &'b mut T
    where
        Self: 'b,
    {
        check_one("tangent buffer", label, self.len());
        &mut self[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_float_or_one_element_is_the_cotangent() {
        assert_eq!(1.5f64.float_cotangent("e"), 1.5);
        assert_eq!(2.5f32.float_cotangent("e"), 2.5);
        assert_eq!((&[3.0][..]).float_cotangent("e"), 3.0);
        assert_eq!((&[4.0]).float_cotangent("e"), 4.0);
        assert_eq!((&vec![5.0]).float_cotangent("e"), 5.0);
    }

    #[test]
    #[should_panic(
        expected = "the cotangent of the float output `e` must be a float or hold one element, but it has 2"
    )]
    fn two_elements_are_refused() {
        (&[1.0, 2.0][..]).float_cotangent("e");
    }

    #[test]
    fn a_float_or_one_element_is_the_tangent_buffer() {
        let (mut a, mut b, mut c) = (0.0f64, [0.0f64], vec![0.0f64]);
        *(&mut a).float_tangent_buffer("e") = 1.0;
        *(&mut b).float_tangent_buffer("e") = 2.0;
        *(&mut c).float_tangent_buffer("e") = 3.0;
        *(&mut c[..]).float_tangent_buffer("e") += 1.0;
        assert_eq!((a, b, c), (1.0, [2.0], vec![4.0]));
    }

    #[test]
    #[should_panic(
        expected = "the tangent buffer of the float output `e` must be a float or hold one element, but it has 0"
    )]
    fn an_empty_buffer_is_refused() {
        let mut none: Vec<f64> = Vec::new();
        (&mut none).float_tangent_buffer("e");
    }
}
