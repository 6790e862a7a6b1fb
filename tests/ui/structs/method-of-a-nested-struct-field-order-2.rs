// `p.inner.m(x)` at `order = K`: the field's type is not visible to the macro, so the method of a nested
// struct called with the dot is the spanned error saying to write `Inner::m(&p.inner, x)`, as at first
// order (method-of-a-nested-struct-field.rs); that form works at `order = 2` (tests/structs34.rs).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Inner {
    pub k: f64,
}

impl Inner {
    #[differentiable(wrt(self, x), order = 2)]
    pub fn m(&self, x: f64) -> f64 {
        self.k * x * x
    }
}

#[derive(Clone, Debug, Differentiable)]
pub struct Outer {
    pub inner: Inner,
    pub c: f64,
}

#[differentiable(order = 2)]
fn dotted(p: &Outer, x: f64) -> f64 {
    p.inner.m(x) * p.c
}

fn main() {}
