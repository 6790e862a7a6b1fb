// What `&mut` may pass to a function with output parameters: a local array, a sub-slice of one (which
// works since sub-slices are output buffers), an element, a float local, an output parameter, a scratch
// buffer. An array result bound to a local is not supported yet: one spanned error.
use autodiff::differentiable;

#[differentiable]
fn fill(x: f64, out: &mut [f64]) {
    out[0] = x;
}

#[differentiable]
fn fill_and_return(x: f64, out: &mut [f64]) -> Vec<f64> {
    out[0] = x;
    vec![x, x]
}

#[differentiable]
fn caller(x: f64) -> f64 {
    let mut k = vec![0.0; 4];
    fill(x, &mut k[1..]);
    let v: Vec<f64> = fill_and_return(x, &mut k);
    k[0] + v[1]
}

fn main() {}
