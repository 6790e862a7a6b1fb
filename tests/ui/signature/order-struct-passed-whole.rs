// `order = K` on a function generic over its float type that passes its struct on whole to a method of a
// generic struct (`g.dot(x)`, the call `Weights::<T>::dot(g, x)`): such a method has no hidden function
// over its struct's values, so this is the spanned error (the error says what to write). A free function
// of the struct works at every order (tests/structs34.rs), and so does this one at first order
// (tests/method_calls33.rs::weighted).
use autodiff::{differentiable, Differentiable, Float};

#[derive(Clone, Differentiable)]
struct Weights<T: Float> {
    w: Vec<T>,
}

impl<T: Float> Weights<T> {
    #[differentiable(wrt(self, x))]
    fn dot(&self, x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + self.w[i] * x[i] * x[i];
        }
        s
    }
}

#[differentiable(order = 2)]
fn weighted<T: Float>(g: &Weights<T>, x: &[T]) -> T {
    g.dot(x) * x[0]
}

fn main() {}
