use autodiff::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    'outer: for i in 0..n {
        for _ in 0..i {
            y = y * x;
            if y > 10.0 {
                break 'outer;
            }
        }
    }
    y
}

fn main() {}
