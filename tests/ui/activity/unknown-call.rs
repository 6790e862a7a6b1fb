use autodiff::differentiable;

fn helper(v: f64) -> f64 {
    v * v
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}
