// A struct parameter named in `wrt(..)` is differentiated: its type must derive `Differentiable`.
// (Without `wrt(..)`, a struct that this file declares without the derive is data, passed through like
// an integer: `f` below, `tests/data_structs39.rs`.)
use autodiff::differentiable;

pub struct Data {
    pub scale: f64,
}

#[differentiable(wrt(x, d))]
fn g(x: f64, d: &Data) -> f64 {
    d.scale * x
}

// Data by default: this compiles, and its gradient is `x`'s alone.
#[differentiable]
fn f(x: f64, d: &Data) -> f64 {
    d.scale * x
}

fn main() {
    let _: (f64, f64) = f_grad(1.0, &Data { scale: 2.0 });
}
