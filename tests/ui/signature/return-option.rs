use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x.sqrt())
    } else {
        None
    }
}

fn main() {}
