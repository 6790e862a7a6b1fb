// Control flow: an assignment in an `if`, an early return, a `match` on an inactive integer.
use autodiff::differentiable;

#[differentiable]
fn branchy(x: f64, k: i32) -> f64 {
    let mut y = x * x;
    if y > 1.0 {
        y = y.sqrt();
    }
    if k < 0 {
        return -y;
    }
    let w = match k {
        0 => y,
        1 | 2 => y * 2.0,
        _ => y.powi(k),
    };
    w + x
}
