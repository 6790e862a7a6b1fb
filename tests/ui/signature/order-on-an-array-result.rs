// Second order of functions returning an array, a `Vec` or a tuple: `f_hvp`, `f_hessian` and
// `f_derivatives` are of one float. One error each at `order`, naming the result and saying to drop
// `order = K` there (a caller with `order = K` differentiates through the function all the same).
use autodiff::{differentiable, Float};

#[differentiable(order = 2)]
fn ordered(x: f64, y: f64) -> [f64; 2] {
    if x > y {
        return [x, y];
    }
    [y, x * y]
}

#[differentiable(order = 2)]
fn squares(x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    y
}

#[differentiable(order = 3)]
fn polar<T: Float>(r: T, t: T) -> (T, T) {
    (r * t.cos(), r * t.sin())
}

fn main() {}
