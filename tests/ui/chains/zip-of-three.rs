use autodiff::differentiable;

// A zip of three slices, in a chain and in a `for`: the error says to iterate over indexes.
#[differentiable]
fn triple(x: &[f64], y: &[f64], z: &[f64]) -> f64 {
    x.iter().zip(y.iter()).zip(z.iter()).map(|((a, b), c)| a * b * c).sum()
}
#[differentiable]
fn triple_for(x: &[f64], y: &[f64], z: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((a, b), c) in x.iter().zip(y.iter()).zip(z.iter()) {
        s += a * b * c;
    }
    s
}
fn main() {
    let _ = triple_grad(&[1.0], &[2.0], &[3.0]);
    let _ = triple_for_grad(&[1.0], &[2.0], &[3.0]);
}
