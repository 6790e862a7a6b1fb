use autodiff::differentiable;

pub struct Inner {
    pub k: f64,
}

pub struct Params {
    pub inner: Vec<Inner>,
}

// A field of a parameter struct is read (`p.inner`), and a field of a nested struct (`p.outer.k`),
// but not a field of an element of a field.
#[differentiable(wrt(x))]
fn f(x: f64, p: &Params) -> f64 {
    p.inner[0].k * x
}

fn main() {}
