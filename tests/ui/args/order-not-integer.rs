use autodiff::differentiable;

#[differentiable(order = two)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
