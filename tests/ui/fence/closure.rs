use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let square = |v: f64| v * v;
    square(x)
}

fn main() {}
