use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut k = 2.0;
    let scale = move |v: f64| k * v;
    k = 3.0;
    scale(x) + k
}

fn main() {}
