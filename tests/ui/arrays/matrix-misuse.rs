use autodiff::differentiable;

#[differentiable]
fn total(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

#[differentiable]
fn rhs(y: &[f64], dydt: &mut [f64]) {
    dydt[0] = y[0];
}

#[differentiable]
fn f(m: &[Vec<f64>], x: f64) -> f64 {
    let rows = &m[1..];
    total(m) * x + rows.len() as f64
}

// A matrix whose shape is computed in the body cannot be passed whole.
#[differentiable]
fn g(x: f64, y: &[f64]) -> f64 {
    let n = y.len() + 1;
    let mut m = vec![vec![x; n]; 2];
    rhs(y, &mut m[1]);
    total(&m)
}

fn main() {}
