// `&mut [f64]` and `&mut f64` are output parameters; a `&mut` matrix is not one yet: write it flat.
use autodiff::differentiable;

#[differentiable]
fn f(xs: &mut [f64], y: &mut f64, m: &mut [Vec<f64>]) -> f64 {
    xs[0] = 2.0 * *y;
    m[0][0] = *y;
    *y
}

fn main() {}
