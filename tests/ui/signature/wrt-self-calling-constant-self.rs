// A method with `wrt(self)` differentiates in `self`, and so must every differentiable method it passes
// `self` to: `plain` keeps `self` constant (no `wrt(self)`). One error at the call says to add
// `wrt(self)` to the callee (before: mismatched types, `()` is not `Differentiable` and missing hidden
// items, all in generated code); the same at `order = 2`.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Model {
    w: Vec<f64>,
    b: f64,
}

impl Model {
    #[differentiable]
    fn plain(&self, x: f64) -> f64 {
        self.b * x
    }

    #[differentiable(wrt(self))]
    fn loss(&self, x: f64) -> f64 {
        self.plain(x) + self.w[0] * x
    }

    #[differentiable(wrt(self), order = 2)]
    fn curved(&self, x: f64) -> f64 {
        self.plain(x) * self.b
    }
}

fn main() {
    let m = Model { w: vec![1.0], b: 2.0 };
    let _ = m.loss_grad(3.0);
}
