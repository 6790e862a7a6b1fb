// What `&mut` may pass to a function with output parameters: a local array, an element, a float local,
// an output parameter, a scratch buffer. A sub-slice and an array result bound to a local are not
// supported yet; each is one spanned error.
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
