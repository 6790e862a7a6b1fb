use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    for _ in 0.. {
        y = y * 0.5;
        if y < 1.0 {
            break;
        }
    }
    y
}

fn main() {}
