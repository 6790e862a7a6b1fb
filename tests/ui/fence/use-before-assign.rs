use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y: f64;
    let z = y * x;
    y = 1.0;
    z
}

fn main() {}
