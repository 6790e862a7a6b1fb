use autodiff::differentiable;

#[differentiable(foo)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
