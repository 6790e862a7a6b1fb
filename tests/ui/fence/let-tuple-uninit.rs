use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let (a, b);
    a = x;
    b = x * x;
    a * b
}

fn main() {}
