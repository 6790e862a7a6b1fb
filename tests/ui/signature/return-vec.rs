use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> Vec<f64> {
    let mut v = Vec::new();
    v.push(x);
    v
}

fn main() {}
