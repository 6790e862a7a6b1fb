use autodiff::differentiable;

#[differentiable]
fn f(x: f64) {
    let _y = x * x;
}

fn main() {}
