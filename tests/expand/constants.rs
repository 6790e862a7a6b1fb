// Constants from outside the function, and the generic shadow of an `f64` function with `order = 2`.
use autodiff::differentiable;

const WEIGHTS: [f64; 3] = [1.0, 2.0, 3.0];
const G: f64 = 9.81;

#[differentiable]
fn poly(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += WEIGHTS[i] * x.powi(i as i32);
    }
    s
}

#[differentiable(order = 2)]
fn fall(t: f64, n: usize) -> f64 {
    let mut h = 100.0;
    h -= 0.5 * G * t * t;
    h * (n as f64).sqrt()
}
