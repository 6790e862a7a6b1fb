use autodiff::differentiable;

// With `order = 2`, an `f32` function converting a float to `f64`: its generic copy runs on dual numbers of
// `f32`, which would lose the precision of the `f64` part. (An `f64` function's `x as f32` is rounded in its
// copy, `tests/forms23.rs`.)
#[differentiable(order = 2)]
fn widened(x: f32) -> f32 {
    let y = x as f64;
    (y * y) as f32
}

// An `f64` function naming an `f32` constant, which its copy cannot write in its own float type.
#[differentiable(order = 2)]
fn f32_constant(x: f64) -> f64 {
    let y = x as f32 * 2.0f32;
    y as f64
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
