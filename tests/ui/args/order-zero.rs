use autodiff::differentiable;

#[differentiable(order = 0)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
