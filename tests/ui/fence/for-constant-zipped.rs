use autodiff::differentiable;

const WEIGHTS: [f64; 3] = [0.5, -1.0, 2.0];

#[differentiable]
fn f(x: &[f64]) -> f64 {
    const LOCAL: [f64; 2] = [1.0, 2.0];
    let mut s = 0.0;
    for &c in LOCAL.iter() {
        s += c * x[0];
    }
    s + WEIGHTS.iter().zip(x.iter()).map(|(w, v)| w * v * v).sum::<f64>()
}

fn main() {}
