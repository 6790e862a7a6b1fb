// A method with `order = K` that keeps `self` constant and passes it to a free function of the struct
// with `order = K` reaches that function's generic copy with its struct constant, made where its body
// reads the struct's fields (tests/methods37.rs). One whose body passes a field on whole to a call
// (`inner_energy(&c.inner, x)`) has none: one error at the call, saying to give the method
// `wrt(self, ..)`, which works (tests/structs34.rs).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Inner {
    pub b: f64,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Cfg {
    pub k: f64,
    pub inner: Inner,
}

#[differentiable(order = 2)]
fn inner_energy(q: &Inner, x: f64) -> f64 {
    q.b * x * x
}

#[differentiable(order = 2)]
fn reads_fields(c: &Cfg, x: f64) -> f64 {
    c.k * x + inner_energy(&c.inner, x)
}

impl Cfg {
    #[differentiable(order = 2)]
    fn energy(&self, x: f64) -> f64 {
        reads_fields(self, x) * x
    }
}

fn main() {}
