// A struct parameter is differentiated by default: its type must derive `Differentiable`, or the
// parameter be left out of `wrt(..)`.
use autodiff::differentiable;

pub struct Data {
    pub scale: f64,
}

#[differentiable]
fn f(x: f64, d: &Data) -> f64 {
    d.scale * x
}

// Left out of `wrt(..)`, its fields are constants: this compiles.
#[differentiable(wrt(x))]
fn g(x: f64, d: &Data) -> f64 {
    d.scale * x
}

fn main() {
    let _ = g_grad(1.0, &Data { scale: 2.0 });
}
