use autodiff::differentiable;

#[differentiable]
fn f(x: f64, n: i32, flip: bool) -> f64 {
    match n {
        0 if flip => -x,
        0 => x,
        _ => x * x,
    }
}

fn main() {}
