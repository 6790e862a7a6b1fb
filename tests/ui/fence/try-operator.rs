use autodiff::differentiable;

#[differentiable]
fn f(x: f64, k: Option<f64>) -> Option<f64> {
    Some(k? * x)
}

fn main() {}
