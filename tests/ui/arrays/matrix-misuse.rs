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

// A matrix whose shape is computed in the body, made in a branch (not the function's own block), cannot
// be passed whole.
#[differentiable]
fn g(x: f64, y: &[f64]) -> f64 {
    let n = y.len() + 1;
    if x > 0.0 {
        let mut m = vec![vec![x; n]; 2];
        rhs(y, &mut m[1]);
        return total(&m);
    }
    x
}

fn main() {}
