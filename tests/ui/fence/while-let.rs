use autodiff::differentiable;

#[differentiable]
fn f(x: f64, n: Option<u32>) -> f64 {
    let mut y = x;
    let mut k = n;
    while let Some(m) = k {
        y = y * x;
        k = m.checked_sub(1);
    }
    y
}

fn main() {}
