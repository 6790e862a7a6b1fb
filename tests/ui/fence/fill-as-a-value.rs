use autodiff::differentiable;

// `.fill(..)` lowers to a loop as a statement (tests/slice_writes.rs); its `()` used as a value does not.
#[differentiable]
fn cleared(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    let done = u.fill(0.0);
    let _ = done;
    u[0] * x[0]
}

fn main() {
    let _ = cleared_grad(&[1.0, 2.0]);
}
