use autodiff::differentiable;

#[differentiable]
fn f(x: &[f64], n: usize) -> f64 {
    assert!(x.len() >= n, "need {} points", n);
    assert_eq!(x.len(), n, "got {n}");
    x[0] * x[0]
}

#[differentiable(order = 2)]
fn g(x: f64) -> f64 {
    assert!(x > 0.0, "x = {}", x);
    format!("{x}");
    x * x
}

fn main() {}
