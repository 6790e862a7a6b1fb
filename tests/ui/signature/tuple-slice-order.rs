use autodiff::differentiable;

// A slice of tuples is data at first order (tests/forms20.rs); `order = K` does not lift its floats yet.
#[differentiable(order = 2)]
fn sparse(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, v) in r {
        s += w[i] * w[i] * v;
    }
    s
}

fn main() {
    let _ = sparse_hessian(&[1.0], &[(0, 1.0)]);
}
