use autodiff::differentiable;

#[differentiable(order = 9)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
