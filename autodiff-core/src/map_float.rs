//! A struct generic over its float type (`Model<T>`) as the same struct of another float type
//! (`Model<Dual<T>>`), for `order = K` on a method of a generic `impl` (`impl<T: Float> Model<T>`): its
//! `f_hvp` runs the method's own `f_grad` on `Model<Dual<T>>` (forward over reverse), so whatever the
//! first order differentiates (calls of other methods, `Self::helper(x)`, output parameters) the second
//! order does too. `#[derive(Differentiable)]` implements [`MapFloat`] for a struct with one float type
//! parameter.

use crate::Dual;
use num_traits::Float;

/// The struct with each float `T` it holds replaced by `f(value, differentiable)` of type `U`, and the
/// floats visited in the same order. `differentiable` is false under a `#[no_grad]` field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no copy over dual numbers, which `order = K` on a method of its generic `impl` needs",
    label = "`order = K` runs this method's `f_grad` on the struct over dual numbers",
    note = "add `#[derive(autodiff::Differentiable)]` to the struct (generic over one float type `T`, its fields \
            floats, `Vec`s and arrays of them, structs generic over `T` that derive it too, or constants of \
            other types marked `#[no_grad]`), or leave `order = K` out of this method (its first order works)"
)]
pub trait MapFloat<T, U> {
    /// The same struct over `U`.
    type Out;
    /// Each float mapped by `f`, in declaration order (the elements of a `Vec` or an array in order).
    fn map_float(&self, differentiable: bool, f: &mut dyn FnMut(T, bool) -> U) -> Self::Out;
    /// Each float given to `f`, in `map_float`'s order.
    fn visit_floats(&self, differentiable: bool, f: &mut dyn FnMut(T, bool));
}

/// `s + direction ε`: each differentiable float of `s` with the direction's float at its place as its
/// tangent, a `#[no_grad]` float with a zero tangent.
///
/// # Panics
///
/// If the direction holds another number of floats than `s` (a `Vec` field of another length), with a
/// message naming `label`.
pub fn dual_struct<T: Float, S: MapFloat<T, Dual<T>>>(label: &str, s: &S, direction: &S) -> S::Out {
    let mut tangents = Vec::new();
    direction.visit_floats(true, &mut |t, differentiable| {
        if differentiable {
            tangents.push(t);
        }
    });
    let mut next = 0usize;
    let lifted = s.map_float(true, &mut |v, differentiable| {
        if !differentiable {
            return Dual::new(v, T::zero());
        }
        let t = tangents.get(next).copied().unwrap_or_else(T::zero);
        next += 1;
        Dual::new(v, t)
    });
    if next != tangents.len() {
        panic!(
            "autodiff: the direction for `{label}` holds {} differentiable floats but `{label}` holds {next}",
            tangents.len()
        );
    }
    lifted
}

/// `s` as a constant: each float with a zero tangent.
pub fn constant_struct<T: Float, S: MapFloat<T, Dual<T>>>(s: &S) -> S::Out {
    s.map_float(true, &mut |v, _| Dual::new(v, T::zero()))
}

/// The values of a struct of dual numbers (a gradient computed on them).
pub fn re_struct<T: Float, S: MapFloat<Dual<T>, T>>(s: &S) -> S::Out {
    s.map_float(true, &mut |d, _| d.re)
}

/// The tangents of a struct of dual numbers (a gradient computed on them: its tangents are the Hessian
/// times the direction); a `#[no_grad]` float keeps its value, as a gradient's does.
pub fn eps_struct<T: Float, S: MapFloat<Dual<T>, T>>(s: &S) -> S::Out {
    s.map_float(true, &mut |d, differentiable| match differentiable {
        true => d.eps,
        false => d.re,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // A hand-written impl of what the derive writes, for `struct P<T> { a: T, w: Vec<T>, #[no_grad] c: T }`.
    struct P<T> {
        a: T,
        w: Vec<T>,
        c: T,
    }

    impl<T: Copy, U> MapFloat<T, U> for P<T> {
        type Out = P<U>;
        fn map_float(&self, d: bool, f: &mut dyn FnMut(T, bool) -> U) -> P<U> {
            P {
                a: f(self.a, d),
                w: self.w.iter().map(|e| f(*e, d)).collect(),
                c: f(self.c, false),
            }
        }
        fn visit_floats(&self, d: bool, f: &mut dyn FnMut(T, bool)) {
            f(self.a, d);
            self.w.iter().for_each(|e| f(*e, d));
            f(self.c, false);
        }
    }

    #[test]
    fn dual_struct_pairs_values_with_the_direction_and_back() {
        let s = P {
            a: 1.0,
            w: vec![2.0, 3.0],
            c: 4.0,
        };
        let v = P {
            a: 0.5,
            w: vec![-1.0, 2.5],
            c: 9.0,
        };
        let d = dual_struct("p", &s, &v);
        assert_eq!((d.a.re, d.a.eps), (1.0, 0.5));
        assert_eq!((d.w[1].re, d.w[1].eps), (3.0, 2.5));
        assert_eq!(
            (d.c.re, d.c.eps),
            (4.0, 0.0),
            "a #[no_grad] float is a constant"
        );
        let re = re_struct(&d);
        assert_eq!((re.a, re.w.clone(), re.c), (1.0, vec![2.0, 3.0], 4.0));
        let eps = eps_struct(&d);
        assert_eq!((eps.a, eps.w.clone(), eps.c), (0.5, vec![-1.0, 2.5], 4.0));
        let k = constant_struct(&s);
        assert_eq!((k.w[0].re, k.w[0].eps), (2.0, 0.0));
    }

    #[test]
    #[should_panic(
        expected = "the direction for `p` holds 1 differentiable floats but `p` holds 3"
    )]
    fn dual_struct_names_a_direction_of_another_shape() {
        let s = P {
            a: 1.0,
            w: vec![2.0, 3.0],
            c: 4.0,
        };
        let v = P {
            a: 0.5,
            w: vec![],
            c: 9.0,
        };
        let _ = dual_struct("p", &s, &v);
    }
}
