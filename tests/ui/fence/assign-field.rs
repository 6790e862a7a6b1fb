use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut t = (x, 1.0);
    t.1 = x * x;
    t.0 + t.1
}

fn main() {}
