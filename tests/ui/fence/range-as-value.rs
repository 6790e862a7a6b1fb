use autodiff::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let r = 1..3;
    x[0] * r.len() as f64
}

fn main() {}
