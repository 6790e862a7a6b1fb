use autodiff::differentiable;

#[differentiable(wrt(0))]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
