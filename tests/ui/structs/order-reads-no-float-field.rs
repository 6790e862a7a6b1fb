use autodiff::{differentiable, Differentiable, Float};

// `order = K` on a method of a generic `impl` that differentiates `self` but reads none of its float
// fields: nothing for the hidden function of the fields to differentiate. One error, at `order` (before,
// a second one, "`wrt()` names no parameter", from the hidden function's expansion, and an unresolved
// `__count_fields_hvp`).
#[derive(Clone, Debug, Differentiable)]
struct Model<T: Float> {
    w: Vec<T>,
    #[no_grad]
    n: usize,
}

impl<T: Float> Model<T> {
    #[differentiable(wrt(self), order = 2)]
    fn count(&self, x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..self.n {
            s = s + x[i];
        }
        s
    }
}

fn main() {
    let m = Model { w: vec![1.0], n: 1 };
    let _ = m.count_grad(&[1.0]);
}
