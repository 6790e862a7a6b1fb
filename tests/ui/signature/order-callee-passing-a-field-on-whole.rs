// A method without `order = K` that passes a field of `self` on whole to a call (`energy(&self.inner, x)`)
// has no generic copy over its struct: the field may be a nested struct or a `Vec`, an array or a matrix
// (`layer(&self.w, x)`), which the syntax does not tell apart. An `order = K` caller that passes it the
// struct gets one error at the call. (A free function of its module doing the same, `tempered`, has its
// hidden function at first order where the source shows each callee with `#[differentiable]` beside it:
// `outer` compiles, tests/structs39.rs.)
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Inner {
    a: f64,
}

#[derive(Clone, Differentiable)]
struct Model {
    inner: Inner,
    t: f64,
}

#[differentiable]
fn energy(q: &Inner, x: f64) -> f64 {
    q.a * x * x
}

#[differentiable]
fn tempered(m: &Model, x: f64) -> f64 {
    energy(&m.inner, x) / m.t
}

#[differentiable(order = 2)]
fn outer(m: &Model, x: f64) -> f64 {
    tempered(m, x) * x
}

impl Model {
    #[differentiable(wrt(self))]
    fn tempered_method(&self, x: f64) -> f64 {
        energy(&self.inner, x) / self.t
    }

    #[differentiable(wrt(self), order = 2)]
    fn outer_method(&self, x: f64) -> f64 {
        self.tempered_method(x) * x
    }
}

fn main() {}
