use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Inner {
    pub b: f64,
}

impl Inner {
    #[differentiable(wrt(self, s))]
    pub fn scaled(&self, s: f64) -> f64 {
        self.b * s
    }
}

#[derive(Clone, Debug, Differentiable)]
pub struct Outer {
    pub a: f64,
    pub inner: Inner,
}

impl Outer {
    // Inside the struct's `impl`: `self.inner.scaled(..)` is a method of another type.
    #[differentiable(wrt(self, x))]
    pub fn energy(&self, x: f64) -> f64 {
        self.inner.scaled(x) + self.a
    }
}

// Outside it, beside a use of the nested struct on whole (`&p.inner`).
#[differentiable]
fn total(p: &Outer, x: f64) -> f64 {
    let whole = Inner::scaled(&p.inner, x);
    p.inner.scaled(x) + whole
}

// The form that works: the method by its path, the field by reference.
#[differentiable]
fn by_path(p: &Outer, x: f64) -> f64 {
    Inner::scaled(&p.inner, x) + p.a
}

fn main() {}
