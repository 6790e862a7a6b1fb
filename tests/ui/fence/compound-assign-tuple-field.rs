use autodiff::differentiable;

// `acc.0 += v`: a compound assignment to a tuple's field. The error says so and how to write it with locals.
#[differentiable]
fn mean_and_square(x: &[f64]) -> f64 {
    let mut acc = (0.0, 0.0);
    for &v in x {
        acc.0 += v;
        acc.1 += v * v;
    }
    acc.0 * acc.1
}

fn main() {
    let _ = mean_and_square_grad(&[1.0, 2.0]);
}
