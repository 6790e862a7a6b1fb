use autodiff::differentiable;

// A `Vec` made inside a branch or loop by `.collect()` or `Vec::new()` and `push`: the reverse sweep cannot
// size its adjoint. The error points where it is made, and is the only one: no half-emitted sweep follows it,
// and the stubs keep the callers compiling.
#[differentiable]
fn doubled(x: &[f64]) -> Vec<f64> {
    if x[0] > 0.0 {
        return x.iter().map(|v| v * 2.0).collect();
    }
    x.to_vec()
}

#[differentiable]
fn pushed(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut v = Vec::new();
        v.push(x[i] * x[i]);
        s += v[0];
    }
    s
}

fn main() {
    let _ = pushed_grad(&[1.0, 2.0]);
}
