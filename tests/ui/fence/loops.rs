use autodiff::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y * x;
    }
    while y > 10.0 {
        y = y / 2.0;
    }
    y
}

fn main() {}
