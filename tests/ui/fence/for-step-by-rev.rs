use autodiff::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..x.len()).step_by(2).rev() {
        s = s * 0.5 + x[i];
    }
    s
}

fn main() {}
