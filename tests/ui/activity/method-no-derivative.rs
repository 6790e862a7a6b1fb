use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let degrees = x.to_degrees();
    degrees + x.fract()
}

fn main() {}
