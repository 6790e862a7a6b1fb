use autodiff::differentiable;

#[differentiable]
fn f(a: [f64; 2], b: &[f64; 2]) -> f64 {
    a[0] = 2.0 * a[1];
    b[1] = a[0];
    a[0] + b[1]
}

fn main() {}
