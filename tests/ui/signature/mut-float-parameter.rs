// `&mut [f64]` is an output parameter; a `&mut f64` is not one yet: return the value instead.
use autodiff::differentiable;

#[differentiable]
fn f(xs: &mut [f64], y: &mut f64) -> f64 {
    xs[0] = 2.0 * *y;
    *y
}

fn main() {}
