use autodiff::differentiable;

#[differentiable(wrt())]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {}
