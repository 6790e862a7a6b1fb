use autodiff::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    x.len() as f64
}

fn main() {}
