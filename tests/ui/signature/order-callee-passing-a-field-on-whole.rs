// A method without `order = K` that passes a field of `self` on whole to a call (`energy(&self.inner, x)`,
// `sdot(&self.w, x)`) has its hidden function over `self`'s values, which an `order = K` caller
// differentiating `self` reaches, only where the source shows the callee with `#[differentiable]` beside it
// (a function of its module called by its bare name, or `Self::h` of its `impl`: tests/method_fields46.rs).
// Two forms have no copy, each one error at the caller's call: a callee imported from another module
// (`tempered_method`), and a caller keeping `self` constant (`outer_constant`: the method's copy with a
// constant `self` cannot pass the field on).
use autodiff::{differentiable, Differentiable};

mod helpers {
    use autodiff::differentiable;

    #[differentiable]
    pub fn sdot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[i];
        }
        s
    }
}

use helpers::sdot;

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[derive(Clone, Differentiable)]
struct Model {
    w: Vec<f64>,
    t: f64,
}

impl Model {
    #[differentiable(wrt(self))]
    fn tempered_method(&self, x: &[f64]) -> f64 {
        sdot(&self.w, x) / self.t
    }

    #[differentiable(wrt(self), order = 2)]
    fn outer_method(&self, x: &[f64]) -> f64 {
        self.tempered_method(x) * x[0]
    }

    #[differentiable(wrt(self))]
    fn local(&self, x: &[f64]) -> f64 {
        dot(&self.w, x) / self.t
    }

    #[differentiable(wrt(x), order = 2)]
    fn outer_constant(&self, x: &[f64]) -> f64 {
        self.local(x) * x[0]
    }
}

fn main() {}
