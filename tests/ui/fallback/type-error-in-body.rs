use autodiff::differentiable;

// A plain type error in the body is rustc's to report, once, at the user's expression.
#[differentiable]
fn f(x: f64) -> f64 {
    let y = x * 2;
    y.sin()
}

fn main() {}
