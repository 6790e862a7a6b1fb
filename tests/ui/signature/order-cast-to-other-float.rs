use autodiff::differentiable;

// With `order = 2`, an `f64` function converting a float to `f32`: its generic copy runs on dual numbers of
// one float type, which `as` cannot convert (and keeping the value alone would drop the derivative).
#[differentiable(order = 2)]
fn narrowed(x: f64) -> f64 {
    let y = x as f32;
    (y * y) as f64
}

// An integer converted to the other float type is a constant, which the copy keeps as it is.
#[differentiable]
fn wide(x: f64) -> f64 {
    x * x + 1.0
}

#[differentiable(order = 2)]
fn fine(x: f32, n: usize) -> f32 {
    wide(n as f64) as f32 * x * x
}

fn main() {
    let _ = fine_hessian(0.5, 2);
}
