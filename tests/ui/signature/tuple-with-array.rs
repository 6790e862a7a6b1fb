use autodiff::differentiable;

#[differentiable]
fn f(x: f64, p: (f64, Vec<f64>)) -> f64 {
    x * p.0
}

fn main() {}
