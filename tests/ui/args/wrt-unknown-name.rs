use autodiff::differentiable;

#[differentiable(wrt(z))]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
