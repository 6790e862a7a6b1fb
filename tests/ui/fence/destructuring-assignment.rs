use autodiff::differentiable;

#[differentiable]
fn fibonacci_like(a: f64, b: f64, n: usize) -> f64 {
    let (mut p, mut q) = (a, b);
    for _ in 0..n {
        (p, q) = (q, p + q);
    }
    p * q
}

fn main() {}
