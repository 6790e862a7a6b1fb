use autodiff::differentiable;

#[differentiable]
fn f(xs: &[f64], t: f64) -> f64 {
    let a = xs[1.0];
    let b = xs[t];
    a + b
}

fn main() {}
