use autodiff::differentiable;

#[differentiable]
fn f(x: f64, n: i32, k: Option<i32>) -> f64 {
    let a = match n {
        ref m => x * *m as f64,
    };
    let b = match k {
        Some(3) => x,
        Some(_) => 2.0 * x,
        None => 1.0,
    };
    a + b
}

fn main() {}
