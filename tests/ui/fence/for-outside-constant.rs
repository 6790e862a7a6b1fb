use autodiff::differentiable;

const COEFFS: [f64; 3] = [0.5, -1.0, 2.0];

#[differentiable]
fn horner(t: f64) -> f64 {
    let mut acc = 0.0;
    for &c in COEFFS.iter() {
        acc = acc * t + c;
    }
    for c in &COEFFS {
        acc += c * t;
    }
    acc
}

fn main() {}
