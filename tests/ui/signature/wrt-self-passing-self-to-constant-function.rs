// The free-function variant of `wrt-self-calling-constant-self`: a method with `wrt(self)` passes `self` to
// a function whose `wrt(..)` leaves its struct parameter out. One error at the call says to name the
// struct in the callee's `wrt(..)` (before: a missing type `__plain_whole` and "this function has no
// derivative" besides, from the caller's hidden function over the struct's values); the same at
// `order = 2`.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Model {
    w: Vec<f64>,
    b: f64,
}

#[differentiable(wrt(x))]
fn plain(m: &Model, x: f64) -> f64 {
    m.b * x
}

impl Model {
    #[differentiable(wrt(self))]
    fn loss(&self, x: f64) -> f64 {
        plain(self, x) + self.w[0] * x
    }

    #[differentiable(wrt(self), order = 2)]
    fn curved(&self, x: f64) -> f64 {
        plain(self, x) * self.b
    }
}

fn main() {
    let m = Model { w: vec![1.0], b: 2.0 };
    let _ = m.loss_grad(3.0);
}
