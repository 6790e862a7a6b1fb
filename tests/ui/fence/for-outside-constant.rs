use autodiff::differentiable;

const COEFFS: [f64; 3] = [0.5, -1.0, 2.0];

// An array constant iterated alone works (`for &c in COEFFS.iter()`, read by index); zipped with
// another side it is not read.
#[differentiable]
fn weighted(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for (&c, &v) in COEFFS.iter().zip(x.iter()) {
        acc += c * v * v;
    }
    for (&v, &c) in x.iter().zip(COEFFS.iter()) {
        acc += c * v;
    }
    acc
}

fn main() {}
