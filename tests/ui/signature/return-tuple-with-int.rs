use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> (f64, usize) {
    (x * x, 1)
}

fn main() {}
