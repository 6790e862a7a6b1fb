use autodiff::differentiable;

#[differentiable]
fn f(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

fn main() {}
