use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = x * 2.0;
    y + if x > 0.0 { return x; } else { 1.0 }
}

fn main() {}
