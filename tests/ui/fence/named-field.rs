use autodiff::differentiable;

pub struct Inner {
    pub k: f64,
}

pub struct Params {
    pub inner: Inner,
}

// A field of a parameter struct is read (`p.inner`), but not a field of that field.
#[differentiable(wrt(x))]
fn f(x: f64, p: &Params) -> f64 {
    p.inner.k * x
}

fn main() {}
