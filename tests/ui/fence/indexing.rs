use autodiff::differentiable;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let pair = (x, y);
    let v = [pair.0, pair.1];
    v[1] * x
}

fn main() {}
