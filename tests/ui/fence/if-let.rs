use autodiff::differentiable;

#[differentiable]
fn f(x: f64, scale: Option<f64>) -> f64 {
    if let Some(k) = scale {
        k * x
    } else {
        x
    }
}

fn main() {}
