use autodiff::differentiable;

// A method with no derivative is fine on a constant; here the error is only the one on `x`.
#[differentiable]
fn f(x: f64, n: u32, k: f64) -> f64 {
    let bits = n.count_ones() as f64;
    let _ = k;
    x.midpoint(1.0) * bits
}

fn main() {}
