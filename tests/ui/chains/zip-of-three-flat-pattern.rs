use autodiff::differentiable;

// A zip of three slices binds `((a, b), c)`: a flat pattern is an error at the pattern.
#[differentiable]
fn triple_for(x: &[f64], y: &[f64], z: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b, c) in x.iter().zip(y.iter()).zip(z.iter()) {
        s += a * b * c;
    }
    s
}

fn main() {}
