use autodiff::differentiable;

#[differentiable(wrt(x, y, x))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
