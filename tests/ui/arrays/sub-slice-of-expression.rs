use autodiff::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let s = &x.to_vec()[1..];
    s[0]
}

fn main() {}
