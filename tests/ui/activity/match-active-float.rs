use autodiff::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    match x {
        0.0 => 1.0,
        _ => x.sin() / x,
    }
}

fn main() {}
