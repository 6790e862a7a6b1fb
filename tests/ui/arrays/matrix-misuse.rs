use autodiff::differentiable;

#[differentiable]
fn total(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

#[differentiable]
fn f(m: &[Vec<f64>], x: f64) -> f64 {
    let rows = &m[1..];
    total(m) * x + rows.len() as f64
}

#[differentiable]
fn g(x: f64) -> f64 {
    let m = vec![vec![x; 2]; 2];
    m[0][1]
}

fn main() {}
