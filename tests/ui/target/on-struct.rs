use autodiff::differentiable;

#[differentiable]
struct Point {
    x: f64,
}

fn main() {
    let _ = Point { x: 1.0 }.x;
}
