use autodiff::differentiable;

// A `Vec` made in a loop body by a copy and pushed to (or popped from) there: its adjoint's first elements
// would flow back into what it was made of, beside the pushed ones, which is not done yet (one made empty
// by `Vec::new()` is supported: tests/gaps28.rs). One error, at the first push or pop (not generated code
// that fails to compile).
#[differentiable]
fn region(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for k in 0..3 {
        let mut s = x.to_vec();
        s.push(x[0] * x[1]);
        let top = s.pop().unwrap();
        acc += top * (k as f64) + s[0];
    }
    acc
}

fn main() {
    let _ = region_grad(&[1.0, 2.0, 3.0]);
}
