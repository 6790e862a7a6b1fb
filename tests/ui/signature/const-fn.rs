use autodiff::differentiable;

#[differentiable]
const fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
