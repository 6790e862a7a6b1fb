use autodiff::differentiable;

#[differentiable(wrt(x, n))]
fn f(x: f64, n: usize) -> f64 {
    x * n as f64
}

fn main() {}
