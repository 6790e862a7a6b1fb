use autodiff::differentiable;

struct Point {
    x: f64,
    y: f64,
}

impl Point {
    // A struct built in the body from active values: one error at the literal, none at `p.x`, `p.y`.
    #[differentiable]
    fn built(a: f64, b: f64) -> f64 {
        let p = Point { x: a * 2.0, y: b };
        p.x * p.y
    }
}

fn main() {
    let _ = Point::built(1.0, 2.0);
}
