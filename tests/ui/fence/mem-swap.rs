use autodiff::differentiable;

// `std::mem::swap` of two locals: the error says how to swap them with a tuple `let`.
#[differentiable]
fn swapped(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y * 2.0;
    std::mem::swap(&mut a, &mut b);
    a * b.sin()
}

fn main() {
    let _ = swapped_grad(1.0, 2.0);
}
