use autodiff::differentiable;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    [x, y][1] * x
}

fn main() {}
